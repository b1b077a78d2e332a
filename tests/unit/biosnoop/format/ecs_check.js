// Checks ECS documents written by biosnoop (--format ecs) and the index
// template in examples/ against the official ECS definitions: EcsFlat of
// the npm package @elastic/ecs (every ECS field, flat, with its type).
//
//   node ecs_check.js --ecs DIR --template FILE --version V SAMPLE.jsonl
//
// DIR is the installed package (node_modules/@elastic/ecs), V the ECS
// version biosnoop pins (ecs_format.h), SAMPLE the documents (ecs_sample).
// Fails, naming each problem, when
//   - a leaf field of a document or of the template is under a name that
//     is neither ECS's nor below "biosnoop";
//   - an ECS field's value does not fit its ECS type (a keyword is a
//     string, a long an integer, a date an RFC 3339 time; an ECS array
//     field an array), or is not among its allowed values;
//   - the template maps an ECS field with another type than ECS's (ECS's
//     `date` may be `date_nanos`, the same type at nanosecond resolution),
//     or leaves a document's field unmapped, or maps a biosnoop field with
//     a type its value does not fit;
//   - an event.type is not one ECS expects for the document's categories;
//   - ECS's required fields are missing, or ecs.version is not V, the
//     package's version and the template's _meta.ecs_version.
// Then it spoils a copy of the inputs in several ways, each of which must
// be caught, so that a check that passes everything cannot pass itself.
'use strict';

const fs = require('fs');
const path = require('path');

function parseArgs(argv) {
  const args = {files: []};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--ecs' || a === '--template' || a === '--version') {
      args[a.slice(2)] = argv[++i];
    } else {
      args.files.push(a);
    }
  }
  if (!args.ecs || !args.template || !args.version || args.files.length !== 1) {
    console.error(
        'usage: ecs_check.js --ecs DIR --template FILE --version V SAMPLE');
    process.exit(64);
  }
  return args;
}

const kNamespace = 'biosnoop';

// Leaves of a document: [flat name, value]; arrays of objects are walked
// element by element under the same name (as Elasticsearch flattens them).
function documentLeaves(doc, prefix = '', out = []) {
  for (const [key, value] of Object.entries(doc)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (Array.isArray(value) && value.length > 0 &&
        value.every(v => v !== null && typeof v === 'object')) {
      for (const v of value) documentLeaves(v, name, out);
    } else if (value !== null && typeof value === 'object' &&
               !Array.isArray(value)) {
      documentLeaves(value, name, out);
    } else {
      out.push([name, value]);
    }
  }
  return out;
}

// Leaves of the template's mappings: flat name -> mapping type.
function templateLeaves(properties, prefix = '', out = new Map()) {
  for (const [key, m] of Object.entries(properties)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (m.properties) {
      templateLeaves(m.properties, name, out);
    } else {
      out.set(name, m.type);
    }
  }
  return out;
}

const kRfc3339Nanos = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/;

// Whether a JSON value fits an Elasticsearch field type.
function fits(type, v) {
  switch (type) {
    case 'keyword':
    case 'constant_keyword':
    case 'wildcard':
    case 'match_only_text':
    case 'text':
      return typeof v === 'string';
    case 'long':
    case 'integer':
    case 'unsigned_long':
      return Number.isInteger(v);
    case 'double':
    case 'float':
    case 'scaled_float':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    case 'date':
    case 'date_nanos':
      return typeof v === 'string' && kRfc3339Nanos.test(v) &&
          !Number.isNaN(Date.parse(v));
    default:
      return false;
  }
}

// The type a dynamic template of the template gives a leaf it does not
// map itself (what Elasticsearch would do with it): the first whose
// path_match (a glob, "*" any run) takes the name and whose
// match_mapping_type takes the JSON value; undefined when none does.
// biosnoop's generic event fields (proto `generic`) rely on
// "biosnoop_integers", so that a new one needs no edit here.
function dynamicType(template, name, value) {
  const v = Array.isArray(value) ? value[0] : value;
  const jsonType = Number.isInteger(v) ? 'long'
      : typeof v === 'string' ? 'string'
      : typeof v === 'boolean' ? 'boolean' : typeof v === 'number' ? 'double'
      : 'object';
  for (const entry of template.template.mappings.dynamic_templates || []) {
    const rule = Object.values(entry)[0];
    // Only a rule for a path is biosnoop's deliberate mapping; the
    // catch-all for strings would take any unmapped name.
    if (!rule.path_match) continue;
    const glob = rule.path_match;
    const re = new RegExp('^' + glob.split('*').map(
        s => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
    if (!re.test(name)) continue;
    const want = rule.match_mapping_type || '*';
    if (want !== '*' && want !== jsonType) continue;
    return rule.mapping.type;
  }
  return undefined;
}

function sameType(ecsType, mapped) {
  return ecsType === mapped || (ecsType === 'date' && mapped === 'date_nanos');
}

function isBiosnoop(name) {
  return name === kNamespace || name.startsWith(`${kNamespace}.`);
}

// Every problem with `docs` and `template`, as lines of text.
function check(ecs, docs, template, version) {
  const {EcsFlat, EcsVersion} = ecs;
  const problems = [];
  const bad = (where, what) => problems.push(`${where}: ${what}`);

  if (EcsVersion !== version) {
    bad('@elastic/ecs', `is ECS ${EcsVersion}, biosnoop pins ${version}`);
  }
  const meta = template._meta || {};
  if (meta.ecs_version !== version) {
    bad('template', `_meta.ecs_version ${meta.ecs_version}, not ${version}`);
  }

  // The template alone.
  const mapped = templateLeaves(template.template.mappings.properties);
  for (const [name, type] of mapped) {
    if (isBiosnoop(name)) continue;
    const def = EcsFlat[name];
    if (!def) {
      bad(`template ${name}`, 'not an ECS field, and not under biosnoop.*');
    } else if (!sameType(def.type, type)) {
      bad(`template ${name}`, `mapped as ${type}; ECS says ${def.type}`);
    }
  }

  // Each document.
  const required =
      Object.values(EcsFlat).filter(f => f.required).map(f => f.flat_name);
  docs.forEach((doc, i) => {
    const where = `document ${i + 1} (${doc.event && doc.event.action})`;
    const leaves = documentLeaves(doc);
    const names = new Set(leaves.map(([n]) => n));
    for (const r of required) {
      if (!names.has(r)) bad(where, `no ${r} (ECS requires it)`);
    }
    if (doc.ecs && doc.ecs.version !== version) {
      bad(where, `ecs.version ${doc.ecs.version}, not ${version}`);
    }
    for (const [name, value] of leaves) {
      const type = mapped.get(name) ?? dynamicType(template, name, value);
      if (isBiosnoop(name)) {
        if (type === undefined) {
          bad(where, `${name} is not mapped in the template`);
          continue;
        }
        const values = Array.isArray(value) ? value : [value];
        if (!values.every(v => fits(type, v))) {
          bad(where, `${name} = ${JSON.stringify(value)} does not fit the ` +
                  `template's ${type}`);
        }
        continue;
      }
      const def = EcsFlat[name];
      if (!def) {
        bad(where, `${name} is not an ECS field, and not under biosnoop.*`);
        continue;
      }
      if (type === undefined) {
        bad(where, `${name} is not mapped in the template`);
      } else if (!sameType(def.type, type)) {
        bad(where, `${name}: the template maps ${type}, ECS says ${def.type}`);
      }
      const isArray = (def.normalize || []).includes('array');
      if (Array.isArray(value) !== isArray) {
        bad(where, `${name} should ${isArray ? '' : 'not '}be an array`);
      }
      const values = Array.isArray(value) ? value : [value];
      if (!values.every(v => fits(def.type, v))) {
        bad(where, `${name} = ${JSON.stringify(value)} is not an ECS ` +
                `${def.type}`);
      }
      if (def.allowed_values) {
        const allowed = def.allowed_values.map(a => a.name);
        for (const v of values) {
          if (!allowed.includes(v)) {
            bad(where, `${name} = ${JSON.stringify(v)}: ECS allows ` +
                    allowed.join(', '));
          }
        }
      }
    }
    // event.type as ECS expects it for each category.
    const ev = doc.event || {};
    for (const category of ev.category || []) {
      const def = (EcsFlat['event.category'].allowed_values || [])
                      .find(a => a.name === category);
      const expected = def && def.expected_event_types;
      if (!expected) continue;
      for (const t of ev.type || []) {
        if (!expected.includes(t)) {
          bad(where, `event.type ${t} is not one ECS expects for ` +
                  `event.category ${category} (${expected.join(', ')})`);
        }
      }
    }
  });
  return problems;
}

// Copies with one thing wrong each; check() must find every one.
function spoiled(docs, template) {
  const copy = x => JSON.parse(JSON.stringify(x));
  const event = docs.findIndex(d => d.event && d.event.kind === 'event');
  const cases = [];
  const withDoc = (name, f) => {
    const d = copy(docs);
    f(d[event]);
    cases.push([name, d, template]);
  };
  const withTemplate = (name, f) => {
    const t = copy(template);
    f(t.template.mappings.properties);
    cases.push([name, docs, t]);
  };
  withDoc('a name ECS does not define', d => {
    d.process.tid = d.process.thread.id;
  });
  withDoc('a biosnoop field outside biosnoop.*', d => {
    d.disk = d.biosnoop.disk;
  });
  withDoc('a long written as a string', d => {
    d.process.pid = String(d.process.pid);
  });
  withDoc('a keyword written as a number', d => {
    d.file.inode = Number(d.file.inode);
  });
  withDoc('a value ECS does not allow', d => {
    d.event.kind = 'slow-io';
  });
  withDoc('an ECS array written as a scalar', d => {
    d.event.category = d.event.category[0];
  });
  withDoc('a timestamp without nanoseconds', d => {
    d['@timestamp'] = '2026-11-25T16:01:02Z';
  });
  withDoc('no ecs.version', d => {
    delete d.ecs;
  });
  withDoc('an event.type ECS does not expect for the category', d => {
    d.event.type = ['installation'];
  });
  withTemplate('the template maps an ECS field with another type', p => {
    p.event.properties.duration.type = 'keyword';
  });
  withTemplate('the template leaves a biosnoop field unmapped', p => {
    delete p.biosnoop.properties.disk;
  });
  {
    const t = copy(template);
    delete t.template.mappings.properties.biosnoop.properties.sector;
    t.template.mappings.dynamic_templates =
        t.template.mappings.dynamic_templates.filter(
            e => !e.biosnoop_integers);
    cases.push(['an integer field neither mapped nor under biosnoop_integers',
                docs, t]);
  }
  withTemplate('the template maps a name ECS does not define', p => {
    p.host.properties.disk = {type: 'keyword'};
  });
  withTemplate('the template maps a biosnoop field with a wrong type', p => {
    p.biosnoop.properties.disk.type = 'long';
  });
  return cases;
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const ecs = require(path.resolve(args.ecs));
  const template = JSON.parse(fs.readFileSync(args.template, 'utf8'));
  const text = fs.readFileSync(args.files[0], 'utf8');
  const lines = text.split('\n');
  if (lines.pop() !== '') {
    console.error(`${args.files[0]}: the last line does not end in \\n`);
    process.exit(1);
  }
  const docs = lines.map(l => JSON.parse(l));
  const actions = new Set(docs.map(d => d.event && d.event.action));
  for (const a of ['stream-start', 'io-completed', 'io-stuck', 'summary',
                   'stats']) {
    if (!actions.has(a)) {
      console.error(`${args.files[0]}: no document with event.action ${a}`);
      process.exit(1);
    }
  }

  let failed = 0;
  const problems = check(ecs, docs, template, args.version);
  for (const p of problems) console.error(`FAIL ${p}`);
  if (problems.length) ++failed;
  const leaves = new Set(docs.flatMap(d => documentLeaves(d).map(([n]) => n)));
  const ecsNamed = [...leaves].filter(n => !isBiosnoop(n));
  console.log(`ECS ${ecs.EcsVersion}: ${Object.keys(ecs.EcsFlat).length} ` +
              `fields defined; ${docs.length} documents, ${leaves.size} ` +
              `distinct fields, ${ecsNamed.length} under ECS names: ` +
              ecsNamed.sort().join(' '));

  for (const [name, d, t] of spoiled(docs, template)) {
    const found = check(ecs, d, t, args.version);
    if (found.length === 0) {
      console.error(`FAIL the check does not catch: ${name}`);
      ++failed;
    } else {
      console.log(`caught: ${name} (${found[0]})`);
    }
  }
  const total = 1 + spoiled(docs, template).length;
  console.log(`ecs_check: ${total - failed} of ${total} checks passed`);
  process.exit(failed ? 1 : 0);
}

main();
