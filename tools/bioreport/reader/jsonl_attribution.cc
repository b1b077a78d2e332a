// An event's or a stuck record's files and dirtier in JSON Lines: "files", an
// array of FileRef objects, and "dirtied_by", a Dirtier object or null (an
// op record's "file" is a FileRef object too).  Each
// object is read as a record is (jsonl_schema.h: NestedObject): every key of
// its message required but the `optional` ones, none twice, unknown keys
// skipped.

#include "absl/strings/str_cat.h"
#include "jsonl_schema.h"

namespace biosnoop::report::jsonl {
namespace {

absl::Status FileRefField(int field, ValueReader& r, v1::FileRef* f) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case v1::FileRef::kPathFieldNumber:
      return r.Str(f->mutable_path());
    case v1::FileRef::kPathKindFieldNumber:
      return r.Str(f->mutable_path_kind());
    case v1::FileRef::kInodeFieldNumber:
      s = r.U64(kU64, &u);
      f->set_inode(u);
      return s;
    case v1::FileRef::kDevFieldNumber:
      return r.Str(f->mutable_dev());
    case v1::FileRef::kDirectFieldNumber: {
      bool b = false;
      s = r.lex().Bool(&b);
      f->set_direct(b);
      return s;
    }
  }
  return UnlistedField(field, r, f);
}

absl::Status DirtierField(int field, ValueReader& r, v1::Dirtier* d) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case v1::Dirtier::kPidFieldNumber:
      s = r.U64(kU32, &u);
      d->set_pid(static_cast<uint32_t>(u));
      return s;
    case v1::Dirtier::kTidFieldNumber:
      s = r.U64(kU32, &u);
      d->set_tid(static_cast<uint32_t>(u));
      return s;
    case v1::Dirtier::kCommFieldNumber:
      return r.Str(d->mutable_comm());
    case v1::Dirtier::kCommRawFieldNumber:
      return CommRaw(r, d);
    case v1::Dirtier::kCgroupFieldNumber:
      return r.NullableStr([d] { d->clear_cgroup(); },
                           [d] { return d->mutable_cgroup(); });
    case v1::Dirtier::kCgroupIdFieldNumber:
      s = r.U64(kU64, &u);
      d->set_cgroup_id(u);
      return s;
    case v1::Dirtier::kDirtiedAtFieldNumber:
      return r.Time(d->mutable_dirtied_at());
    case v1::Dirtier::kOpIdFieldNumber:
      s = r.U64(kU64, &u);
      d->set_op_id(u);
      return s;
  }
  return UnlistedField(field, r, d);
}

}  // namespace

absl::Status FileObject(ValueReader& r, v1::FileRef* f) {
  return NestedObject(r, AllSchemas().file_ref, f, FileRefField);
}

template <typename Msg>
absl::Status FilesArray(ValueReader& r, Msg* e) {
  JsonLexer& lex = r.lex();
  e->clear_files();
  if (!lex.Consume('[')) return lex.Error("expected an array of objects");
  if (lex.Consume(']')) return absl::OkStatus();
  do {
    if (absl::Status s = FileObject(r, e->add_files()); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("file ", e->files_size(), ": ", s.message()));
    }
  } while (lex.Consume(','));
  if (!lex.Consume(']')) return lex.Error("expected ',' or ']'");
  return absl::OkStatus();
}

template <typename Msg>
absl::Status DirtiedBy(ValueReader& r, Msg* e) {
  JsonLexer& lex = r.lex();
  if (lex.ConsumeNull()) {
    e->clear_dirtied_by();
    return absl::OkStatus();
  }
  return NestedObject(r, AllSchemas().dirtier, e->mutable_dirtied_by(),
                      DirtierField, "expected an object or null");
}

// An event's, and a stuck record's.
template absl::Status FilesArray(ValueReader& r, v1::Event* e);
template absl::Status FilesArray(ValueReader& r, v1::Stuck* e);
template absl::Status DirtiedBy(ValueReader& r, v1::Event* e);
template absl::Status DirtiedBy(ValueReader& r, v1::Stuck* e);

}  // namespace biosnoop::report::jsonl
