#!/usr/bin/python3
"""The shipping configs in examples/shipping against the schema.

    shipping_configs_test.py ROOT ECS_SAMPLE_PROGRAM

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
Then spoils each config and checks the check catches it.
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
    # .message is the file source's line, before parse_json replaces it.
    refs.discard("message")
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


def check_all(texts, schema, ecs):
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
    return cases


def main():
    root, sample = sys.argv[1], sys.argv[2]
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

    problems, _ = check_all(texts, schema, ecs)
    for p in problems:
        fail(p)
    if not problems:
        PASSED.append("every field each config reads exists; labels bounded")
    yamllint([os.path.join(shipping, n) for n in names
              if n.endswith((".yml", ".yaml"))])

    for what, spoiled in spoil(texts):
        found, _ = check_all(spoiled, schema, ecs)
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
