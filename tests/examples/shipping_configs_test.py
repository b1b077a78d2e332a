#!/usr/bin/python3
"""The shipping configs in examples/shipping against the schema.

    shipping_configs_test.py ROOT ECS_SAMPLE_PROGRAM BIOREPORT

Extracts every field name each config reads from a biosnoop record and
checks that it exists: in proto/biosnoop.proto for the JSON Lines stream
(read through its descriptors, as protoc compiles them: `type`, then each
Record member's fields, nested messages by dotted path), and for the ECS
documents in what the real encoder writes (ECS_SAMPLE, the ecs_sample
program, every record kind with every field set).  Checks that every Loki
label a config sets is one of host, disk, op, type, and that the I/O
records get exactly those four.  Parses the YAML configs (Debian's
python3-yaml) and lints them with Debian's yamllint; no validator of
Filebeat, Vector, Alloy or Fluent Bit themselves is packaged in Debian 12.
Then, record by record: sends every record type of the golden stream
(tests/golden/stream/stream.jsonl: header, event, stuck, op, summary,
stats, written by the real encoders) through a model of each config's
path (no agent is packaged in Debian 12 to run it): whether the record
reaches a sink or is dropped, whether each label it gets has a value,
and the line that arrives.  bioreport (BIOREPORT) then reads the
arrived lines and must find every record with every field it had.
Filebeat's documents (ECS) are checked per kind the same way, for the
fields the path needs.  Then spoils each config and checks the check
catches it.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml
from google.protobuf import descriptor_pb2

LABELS = {"host", "disk", "op", "type"}
FAILURES = []
PASSED = []


def fail(what):
    FAILURES.append(what)
    print(f"FAIL {what}", file=sys.stderr)


# --- What exists ------------------------------------------------------------


def schema_fields(root):
    """Every JSON Lines field path: "type" and each Record member's fields,
    nested messages (Timestamp excepted: a string) by dotted path."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "set.pb")
        subprocess.run(
            ["protoc", "--include_imports", f"--descriptor_set_out={out}",
             f"-I{root}/proto", "-I/usr/include", "biosnoop.proto"],
            check=True)
        fds = descriptor_pb2.FileDescriptorSet()
        with open(out, "rb") as f:
            fds.ParseFromString(f.read())
    messages = {}
    for file in fds.file:
        for m in file.message_type:
            messages[f".{file.package}.{m.name}"] = m
    fields = {"type"}

    def walk(msg, prefix):
        for f in msg.field:
            name = prefix + f.name
            fields.add(name)
            if (f.type == f.TYPE_MESSAGE and
                    f.type_name != ".google.protobuf.Timestamp"):
                walk(messages[f.type_name], name + ".")

    record = messages[".biosnoop.v1.Record"]
    for member in record.field:
        walk(messages[member.type_name], "")
    return fields


def ecs_fields(ecs_sample):
    """Every field path of the ECS documents ecs_sample writes, objects
    included."""
    fields = set()

    def walk(v, prefix):
        if isinstance(v, dict):
            for k, x in v.items():
                name = prefix + k
                fields.add(name)
                walk(x, name + ".")
        elif isinstance(v, list):
            for x in v:
                walk(x, prefix)

    with tempfile.TemporaryDirectory() as tmp:
        sample = os.path.join(tmp, "sample.ecs.jsonl")
        subprocess.run([ecs_sample, sample], check=True)
        with open(sample, encoding="utf-8") as f:
            for line in f:
                walk(json.loads(line), "")
    return fields


# --- What each config reads ---------------------------------------------------


def strip_index(path):
    """JMESPath/VRL indices out: files[0].path -> files.path."""
    return re.sub(r"\[[^\]]*\]", "", path)


def filebeat_refs(text):
    """Fields in conditions (when.*: {field: value}) and %{[field]}."""
    doc = yaml.safe_load(text)
    refs = set(re.findall(r"%\{\[([^\]]+)\]\}", text))
    conditions = {"equals", "contains", "regexp", "range", "network"}

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k.split(".")[-1] in conditions and isinstance(x, dict):
                    refs.update(x.keys())
                if k == "when.has_fields" or k == "has_fields":
                    refs.update(x)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(doc)
    for inp in doc["filebeat.inputs"]:
        for parser in inp.get("parsers", []):
            nd = parser.get("ndjson", {})
            if nd.get("message_key"):
                refs.add(nd["message_key"])
    return refs


VRL_PATH = re.compile(r"(?<![\w)\]\"])\.(@?[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*"
                      r"|\[\d+\])*)")


def vrl_refs(program):
    # String literals out first: "." inside them is not a path.
    code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', program)
    code = re.sub(r"#.*", "", code)
    return {strip_index(p) for p in VRL_PATH.findall(code)}


def vector_config(text):
    """Fields read (VRL paths, label templates) and the Loki label sets
    (sink name -> labels)."""
    doc = yaml.safe_load(text)
    refs = set()
    for t in doc.get("transforms", {}).values():
        if t["type"] == "remap":
            refs |= vrl_refs(t["source"])
        elif t["type"] == "route":
            for cond in t["route"].values():
                refs |= vrl_refs(cond)
        elif t["type"] == "filter":
            refs |= vrl_refs(t["condition"])
    # .message is the file source's line, before parse_json replaces it;
    # .record holds the parsed record: its paths are the record's fields.
    refs.discard("message")
    refs.discard("record")
    refs = {r[len("record."):] if r.startswith("record.") else r
            for r in refs}
    labels = {}
    for name, s in doc.get("sinks", {}).items():
        for template in s.get("labels", {}).values():
            refs.update(re.findall(r"\{\{\s*([\w.]+)\s*\}\}", template))
        if s["type"] == "loki":
            labels[name] = set(s.get("labels", {}))
    return refs, labels


def alloy_block(text, name):
    """The bodies of every `name { ... }` block (braces balanced)."""
    bodies = []
    for m in re.finditer(re.escape(name) + r"\s*(?:\"[^\"]*\"\s*)?\{", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        bodies.append(text[m.end():i - 1])
    return bodies


def alloy_map(body):
    """key = "value" pairs of a body (key = expression: value None)."""
    pairs = {}
    for k, v in re.findall(r"^\s*([\w]+)\s*=\s*(.+?),?\s*$", body, re.M):
        pairs[k] = v[1:-1] if v.startswith('"') and v.endswith('"') else None
    return pairs


def alloy_config(text):
    code = re.sub(r"//.*", "", text)
    extracted = {}
    for body in alloy_block(code, "stage.json"):
        for values in alloy_block(body, "expressions ="):
            extracted.update(alloy_map(values))
    refs = {strip_index(v) for v in extracted.values() if v}
    problems = []
    # Every stage that names an extracted value names one stage.json made.
    used = []
    for stage in ("stage.timestamp",):
        for body in alloy_block(code, stage):
            used.append(alloy_map(body).get("source"))
    labels = set()
    for stage in ("stage.labels", "stage.structured_metadata"):
        for body in alloy_block(code, stage):
            for values in alloy_block(body, "values ="):
                for k, v in alloy_map(values).items():
                    used.append(v or k)
                    if stage == "stage.labels":
                        labels.add(k)
    for body in alloy_block(code, "stage.static_labels"):
        for values in alloy_block(body, "values ="):
            labels.update(alloy_map(values))
    for u in used:
        if u not in extracted:
            problems.append(f"uses {u!r}, which stage.json does not extract")
    dropped = set()
    for body in alloy_block(code, "stage.label_drop"):
        dropped.update(re.findall(r'"(\w+)"', body))
    if "filename" not in dropped:
        problems.append("keeps loki.source.file's filename label")
    return refs, {"loki.process": labels}, problems


def fluent_bit_config(text, parsers):
    code = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    refs = set()
    for accessor in re.findall(r"\$(\w+(?:\['\w+'\])*)", code):
        refs.add(re.sub(r"\['(\w+)'\]", r".\1", accessor))
    for key in re.findall(r"^\s*Time_Key\s+(\S+)", parsers, re.M):
        refs.add(key)
    for key in re.findall(r"^\s*(?:Add|Remove|Rename)\s+(\S+)", code, re.M):
        refs.add(key)
    labels = {}
    for i, section in enumerate(re.split(r"^\[OUTPUT\]", code, flags=re.M)[1:]):
        if not re.search(r"^\s*Name\s+loki\s*$", section, re.M):
            continue
        m = re.search(r"^\s*Labels\s+(.+)$", section, re.M)
        labels[f"output {i + 1}"] = (
            {p.split("=")[0].strip() for p in m.group(1).split(",")}
            if m else {"job"})  # the plugin's default label
    return refs, labels


# --- Record by record ----------------------------------------------------------


class Dropped(Exception):
    pass


def vector_ship(text, line):
    """The lines Vector's Loki sinks send for one biosnoop line, as the
    config says: the remap's parse and field copies, a failing
    parse_timestamp!, the route, each sink's label templates and codec."""
    doc = yaml.safe_load(text)
    rec = json.loads(line)
    event = {}
    remaps = [t for t in doc.get("transforms", {}).values()
              if t["type"] == "remap"]
    for t in remaps:
        src = re.sub(r"#.*", "", t["source"])
        if re.search(r"^\s*\.\s*=\s*parse_json!\(\.message\)", src, re.M):
            event = dict(rec)
        for dst, path in re.findall(r"^\s*\.(\w+)\s*=\s*\.record\.(\w+)\s*$",
                                    src, re.M):
            event[dst] = rec.get(path)
        for f in re.findall(r"^\s*if \.(\w+) == null \{ \.\1 = ", src, re.M):
            if event.get(f) is None:
                event[f] = "<filled by the config>"
        for path in re.findall(r"parse_timestamp!\(\.(?:record\.)?(\w+)", src):
            if rec.get(path) is None:
                raise Dropped(f"parse_timestamp! fails: no {path!r}")
        if re.search(r"^\s*\.message\s*=", src, re.M):
            raise Dropped("the remap rewrites .message (the line)")
    event["message"] = line
    dest = "_unmatched"
    route_name = None
    for name, t in doc.get("transforms", {}).items():
        if t["type"] != "route":
            continue
        route_name = name
        for rname, cond in t["route"].items():
            if not re.fullmatch(r'\.type == "\w+"( \|\| \.type == "\w+")*',
                                cond):
                raise Dropped(f"route {rname}: a condition the model cannot "
                              f"read: {cond!r}")
            if event.get("type") in re.findall(r'"(\w+)"', cond):
                dest = rname
                break
    out = []
    for sname, sink in doc.get("sinks", {}).items():
        if f"{route_name}.{dest}" not in sink.get("inputs", []):
            continue
        for label, template in sink.get("labels", {}).items():
            for f in re.findall(r"\{\{\s*([\w.]+)\s*\}\}", template):
                if event.get(f) is None:
                    raise Dropped(f"{sname}: label {label!r} has no value "
                                  f"({{{{ {f} }}}})")
        codec = sink.get("encoding", {}).get("codec")
        if codec == "text":
            out.append(event["message"])
        elif codec == "json":
            sent = {k: v for k, v in event.items() if k != "message"}
            if sink.get("remove_timestamp", True):
                sent.pop("timestamp", None)
            out.append(json.dumps(sent))
        else:
            raise Dropped(f"{sname}: codec {codec!r} is not a JSON line")
    if not out:
        raise Dropped(f"no sink takes route {dest!r}")
    return out


def fluent_bit_ship(text, parsers, line):
    """The line Fluent Bit's Loki output sends: the parser's Time_Key (and
    whether it keeps it), modify's Add, rewrite_tag's rules, the output
    that matches the tag, its labels and Line_Format."""
    code = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    rec = json.loads(line)
    m = re.search(r"^\s*Time_Key\s+(\S+)", parsers, re.M)
    keep = re.search(r"^\s*Time_Keep\s+On\s*$", parsers, re.M | re.I)
    if m and not keep:
        rec.pop(m.group(1), None)
    tag = re.search(r"^\s*Tag\s+(\S+)", code, re.M).group(1)
    for section in re.split(r"^\[", code, flags=re.M)[1:]:
        if not section.startswith("FILTER]"):
            continue
        for k, v in re.findall(r"^\s*Add\s+(\S+)\s+(\S+)", section, re.M):
            rec.setdefault(k, v)
        for key, regex, new in re.findall(
                r"^\s*Rule\s+\$(\w+)\s+(\S+)\s+(\S+)", section, re.M):
            if re.search(regex, str(rec.get(key, ""))):
                tag = new
    out = []
    for section in re.split(r"^\[OUTPUT\]", code, flags=re.M)[1:]:
        match = re.search(r"^\s*Match\s+(\S+)", section, re.M).group(1)
        if not re.fullmatch(match.replace(".", r"\.").replace("*", ".*"), tag):
            continue
        labels = re.search(r"^\s*Labels\s+(.+)$", section, re.M)
        for pair in (labels.group(1).split(",") if labels else []):
            key, _, value = pair.partition("=")
            if value.strip().startswith("$") and \
                    rec.get(value.strip()[1:]) is None:
                raise Dropped(f"label {key.strip()!r} has no value")
        fmt = re.search(r"^\s*Line_Format\s+(\S+)", section, re.M)
        if not fmt or fmt.group(1) != "json":
            raise Dropped("Line_Format is not json")
        out.append(json.dumps(rec, ensure_ascii=False))
    if not out:
        raise Dropped(f"no output matches tag {tag!r}")
    return out


def alloy_ship(text, line):
    """Alloy's loki.process keeps the line unless a stage rewrites or drops
    it; the model refuses the stages that would."""
    code = re.sub(r"//.*", "", text)
    for stage in ("stage.output", "stage.replace", "stage.drop",
                  "stage.template", "stage.match"):
        if stage + " " in code or stage + "{" in code:
            raise Dropped(f"{stage}: the model does not follow it")
    return [line]


def filebeat_documents(text, ecs_docs):
    """Per ECS document kind: it has its own @timestamp (else Filebeat's
    read time replaces it) and event.kind, and goes to one index."""
    problems = []
    doc = yaml.safe_load(text)
    routes = doc["output.elasticsearch"].get("indices", [])
    for d in ecs_docs:
        kind = d.get("event", {}).get("kind")
        if "@timestamp" not in d:
            problems.append(f"filebeat.yml: a {kind} document has no "
                            f"@timestamp")
        index = doc["output.elasticsearch"]["index"]
        for r in routes:
            cond = r.get("when.equals", {})
            if all(_dig(d, k) == v for k, v in cond.items()):
                index = r["index"]
                break
        want = "biosnoop-metrics" if kind == "metric" else "biosnoop-events"
        if index != want:
            problems.append(f"filebeat.yml: a {kind} document goes to "
                            f"{index}, not {want}")
    return problems


def _dig(d, dotted):
    for k in dotted.split("."):
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def record_by_record(texts, stream_lines, ecs_docs, bioreport):
    """Every record type through every config's path, then bioreport over
    what arrived: every record, with every field it had."""
    problems = []
    ships = {
        "vector.yaml": lambda ln: vector_ship(texts["vector.yaml"], ln),
        "fluent-bit.conf": lambda ln: fluent_bit_ship(
            texts["fluent-bit.conf"], texts["fluent-bit-parsers.conf"], ln),
        "config.alloy": lambda ln: alloy_ship(texts["config.alloy"], ln),
    }
    for name, ship in ships.items():
        arrived = []
        for ln in stream_lines:
            kind = json.loads(ln)["type"]
            try:
                arrived += ship(ln)
            except Dropped as e:
                problems.append(f"{name}: a {kind} record is lost: {e}")
        problems += read_back(name, stream_lines, arrived, bioreport)
    problems += filebeat_documents(texts["filebeat.yml"], ecs_docs)
    return problems


def read_back(name, sent, arrived, bioreport):
    """bioreport converts what arrived to protobuf and back: each record
    sent must come out with every field and value it had (an agent may
    add fields: the host of a stats record)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "arrived.jsonl")
        with open(src, "w", encoding="utf-8") as f:
            f.write("".join(a.rstrip("\n") + "\n" for a in arrived))
        pb, back = os.path.join(tmp, "a.pb"), os.path.join(tmp, "b.jsonl")
        for args in (["convert", "--to", "proto", "-o", pb, src],
                     ["convert", "--to", "jsonl", "-o", back, pb]):
            r = subprocess.run([bioreport, *args], capture_output=True,
                               text=True)
            if r.returncode != 0:
                return [f"{name}: bioreport {args[0]} of what arrived "
                        f"failed: {r.stderr.strip()}"]
        with open(back, encoding="utf-8") as f:
            got = [json.loads(x) for x in f if x.strip()]
    problems = []
    want = [json.loads(x) for x in sent]
    if len(got) != len(want):
        return [f"{name}: bioreport read {len(got)} records of "
                f"{len(want)} sent"]
    for w, g in zip(want, got):
        lost = {k: v for k, v in w.items() if g.get(k) != v}
        if lost:
            problems.append(f"{name}: a {w['type']} record read back without "
                            f"{sorted(lost)}")
    return problems


# --- Checks -------------------------------------------------------------------


def check_refs(name, refs, known, where):
    problems = [f"{name}: reads {r!r}, which is not in {where}"
                for r in sorted(refs) if r not in known]
    if not refs:
        problems.append(f"{name}: no field found to check (extraction broke?)")
    return problems


def check_labels(name, labels):
    problems = []
    for sink, ls in labels.items():
        extra = ls - LABELS
        if extra:
            problems.append(f"{name} {sink}: Loki labels {sorted(extra)} are "
                            f"not in the bounded set {sorted(LABELS)}")
    if labels and not any(ls == LABELS for ls in labels.values()):
        problems.append(f"{name}: no Loki sink labels the I/O records with "
                        f"exactly {sorted(LABELS)}")
    return problems


def check_all(texts, schema, ecs, records=None):
    problems = []
    refs = filebeat_refs(texts["filebeat.yml"])
    problems += check_refs("filebeat.yml", refs, ecs,
                           "the ECS documents (--format ecs)")
    refs, labels = vector_config(texts["vector.yaml"])
    problems += check_refs("vector.yaml", refs, schema, "the schema")
    problems += check_labels("vector.yaml", labels)
    refs, labels, more = alloy_config(texts["config.alloy"])
    problems += check_refs("config.alloy", refs, schema, "the schema")
    problems += check_labels("config.alloy", labels)
    problems += [f"config.alloy: {p}" for p in more]
    refs, labels = fluent_bit_config(texts["fluent-bit.conf"],
                                     texts["fluent-bit-parsers.conf"])
    problems += check_refs("fluent-bit.conf", refs, schema, "the schema")
    problems += check_labels("fluent-bit.conf", labels)
    if records:
        problems += record_by_record(texts, *records)
    return problems, refs


def yamllint(paths):
    if shutil.which("yamllint") is None:
        if os.environ.get("CI") == "true":
            fail("no yamllint (tools/install-deps installs it)")
        else:
            print("yamllint not installed: YAML not linted", file=sys.stderr)
        return
    conf = ("{extends: default, rules: {document-start: disable, "
            "line-length: {max: 100}, truthy: {check-keys: false}}}")
    r = subprocess.run(["yamllint", "-f", "parsable", "-d", conf, *paths],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail("yamllint:\n" + r.stdout + r.stderr)
    else:
        PASSED.append("yamllint")


def spoil(texts):
    """Copies with one mistake each, every one of which must be caught."""
    cases = []

    def case(what, name, old, new):
        assert old in texts[name], (name, old)
        t = dict(texts)
        t[name] = texts[name].replace(old, new, 1)
        cases.append((what, t))

    case("filebeat: a field the ECS documents lack", "filebeat.yml",
         "event.kind:", "event.severity:")
    case("vector: a field the schema lacks", "vector.yaml",
         '.type == "event"', '.kind == "event"')
    case("vector: a high-cardinality label", "vector.yaml",
         'op: "{{ op }}"', 'pid: "{{ pid }}"')
    case("alloy: a field the schema lacks", "config.alloy",
         '"files[0].path"', '"files[0].name"')
    case("alloy: a high-cardinality label", "config.alloy",
         'op   = "",\n      type', 'comm = "",\n      type')
    case("alloy: the filename label kept", "config.alloy",
         '["filename"]', '["job"]')
    case("fluent bit: a field the schema lacks", "fluent-bit.conf",
         "op=$op", "op=$operation")
    case("fluent bit: a high-cardinality label", "fluent-bit.conf",
         "host=$host, type=$type", "host=$host, type=$type, pid=$pid")
    case("fluent bit: the time key", "fluent-bit-parsers.conf",
         "Time_Key    timestamp", "Time_Key    time")
    # Record by record: what once lost the header or every timestamp.
    case("vector: parse_timestamp! on the header", "vector.yaml",
         '.timestamp = parse_timestamp(string(time) ?? "", format: "%+") ?? '
         'now()', '.timestamp = parse_timestamp!(.record.timestamp, '
         'format: "%+")')
    case("vector: the header routed nowhere", "vector.yaml",
         "inputs: [by_type._unmatched]", "inputs: [by_type.stream]")
    case("vector: the JSON codec drops the timestamp", "vector.yaml",
         "    encoding:\n      codec: text\n    labels:\n      host: "
         "\"{{ host }}\"\n      type:",
         "    encoding:\n      codec: json\n    labels:\n      host: "
         "\"{{ host }}\"\n      type:")
    case("vector: a label the stats record lacks", "vector.yaml",
         "      if .host == null { .host = get_hostname!() }\n", "")
    case("fluent bit: the time key dropped from the line",
         "fluent-bit-parsers.conf", "Time_Keep   On", "Time_Keep   Off")
    case("fluent bit: the stream's records routed nowhere", "fluent-bit.conf",
         "Match      biosnoop.stream", "Match      biosnoop.other")
    case("alloy: a stage that rewrites the line", "config.alloy",
         "  stage.label_drop {", "  stage.output {\n    source = \"file\"\n  }"
         "\n\n  stage.label_drop {")
    return cases


def main():
    root, sample, bioreport = sys.argv[1], sys.argv[2], sys.argv[3]
    shipping = os.path.join(root, "examples", "shipping")
    names = ["filebeat.yml", "vector.yaml", "config.alloy", "fluent-bit.conf",
             "fluent-bit-parsers.conf"]
    texts = {}
    for n in names:
        with open(os.path.join(shipping, n), encoding="utf-8") as f:
            texts[n] = f.read()
        first = texts[n].lstrip().splitlines()[0]
        if not first.startswith(("#", "//")):
            fail(f"{n}: no header comment saying what it does")
    schema = schema_fields(root)
    ecs = ecs_fields(sample)
    with open(os.path.join(root, "tests", "golden", "stream", "stream.jsonl"),
              encoding="utf-8") as f:
        stream_lines = [x for x in f if x.strip()]
    types = {json.loads(x)["type"] for x in stream_lines}
    if types != {"header", "event", "stuck", "op", "summary", "stats"}:
        fail(f"the golden stream's record types changed: {sorted(types)}")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sample, os.path.join(tmp, "s.jsonl")], check=True)
        with open(os.path.join(tmp, "s.jsonl"), encoding="utf-8") as f:
            ecs_docs = [json.loads(x) for x in f if x.strip()]
    records = (stream_lines, ecs_docs, bioreport)

    problems, _ = check_all(texts, schema, ecs, records)
    for p in problems:
        fail(p)
    if not problems:
        PASSED.append("every field each config reads exists; labels "
                      "bounded; every record type arrives and reads back")
    yamllint([os.path.join(shipping, n) for n in names
              if n.endswith((".yml", ".yaml"))])

    for what, spoiled in spoil(texts):
        found, _ = check_all(spoiled, schema, ecs, records)
        found = [p for p in found if p not in problems]
        if found:
            PASSED.append(what)
            print(f"caught: {what} ({found[0]})")
        else:
            fail(f"the check does not catch: {what}")
    print(f"shipping_configs: {len(PASSED)} of "
          f"{len(PASSED) + len(FAILURES)} checks passed")
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
