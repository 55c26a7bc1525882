// Loads flinkspec's conformance test vectors (docs/vectors.md) and runs them against any
// implementation of the protocol (docs/protocol/v1.md): a program reading JSON-line requests on stdin
// and writing one JSON-line answer per request on stdout. Node's standard library only.
//
// An output is compared by exact JSON equality (numbers by value, never through a double: Flink's
// longs do not fit one; in watermark.timers timers, in watermark.windows windows, with equal timestamps may come
// in any order, and in watermark.join the pairs one record joins), an
// error by its "type" only.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gunzipSync } from 'node:zlib';

/** A JSON number: its literal (sent as written) and its value in one spelling (compared). */
export class Num {
  constructor(literal) {
    this.literal = literal;
  }

  normal() {
    const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(this.literal);
    let digits = (m[2] + (m[3] ?? '')).replace(/^0+/, '');
    let exp = Number(m[4] ?? 0) - (m[3] ?? '').length;
    if (digits === '') return '0';
    while (digits.endsWith('0')) {
      digits = digits.slice(0, -1);
      exp += 1;
    }
    return `${m[1]}${digits}e${exp}`;
  }
}

/** JSON text to values; objects keep their order, numbers become Num. */
export function parse(text) {
  let i = 0;
  const fail = (what) => {
    throw new SyntaxError(`bad JSON at ${i}: ${what}`);
  };
  const space = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i += 1;
  };
  const expect = (c) => {
    if (text[i] !== c) fail(`expected '${c}'`);
    i += 1;
  };
  const string = () => {
    expect('"');
    let out = '';
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const c = text[i++];
      if (c === '"') return out;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = text[i++];
      const simple = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e === 'u') {
        out += String.fromCharCode(parseInt(text.slice(i, i + 4), 16));
        i += 4;
      } else {
        out += simple[e] ?? e;
      }
    }
  };
  const value = () => {
    space();
    const c = text[i];
    if (c === '{') {
      i += 1;
      const out = new Map();
      space();
      if (text[i] === '}') {
        i += 1;
        return out;
      }
      for (;;) {
        space();
        const key = string();
        space();
        expect(':');
        out.set(key, value());
        space();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        expect('}');
        return out;
      }
    }
    if (c === '[') {
      i += 1;
      const out = [];
      space();
      if (text[i] === ']') {
        i += 1;
        return out;
      }
      for (;;) {
        out.push(value());
        space();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        expect(']');
        return out;
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    const m = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail(`unexpected '${c}'`);
    i += m[0].length;
    return new Num(m[0]);
  };
  const v = value();
  space();
  if (i !== text.length) fail('text after the value');
  return v;
}

/** JSON text of a value: as parsed (to send) or canonical (keys sorted, numbers normal). */
export function write(v, canonical = false) {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (v instanceof Num) return canonical ? v.normal() : v.literal;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => write(x, canonical)).join(',')}]`;
  const keys = [...v.keys()];
  if (canonical) keys.sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${write(v.get(k), canonical)}`).join(',')}}`;
}

/**
 * The tie rule of watermark.timers (key 'fired'), watermark.windows and watermark.join (key 'outputs'): each step's timestamps
 * in order (a fired window's; a late record's is null), its items as a sorted multiset.
 */
export function tieNormal(output, key = 'fired') {
  if (!(output instanceof Map) || !Array.isArray(output.get(key))) return output;
  const steps = [];
  for (const step of output.get(key)) {
    if (!Array.isArray(step) || !step.every((t) => t instanceof Map)) return output;
    const stamp = (t) => (t.get('fired') instanceof Map ? t.get('fired').get('timestamp') : t.get('timestamp')) ?? null;
    steps.push(new Map([
      ['timestamps', step.map(stamp)],
      ['timers', step.map((t) => write(t, true)).sort()],
    ]));
  }
  return new Map([...output, [key, steps]]);
}

const TIE_KEYS = { 'watermark.timers': 'fired', 'watermark.windows': 'outputs', 'watermark.join': 'outputs' };

const short = (s) => (s.length <= 300 ? s : `${s.slice(0, 297)}...`);

/** Why the actual answer is not the expected one, or null when it passes. */
export function disagreement(area, expected, actual) {
  const wantError = expected.get('error');
  if (wantError instanceof Map) {
    const error = actual.get('error');
    const type = wantError.get('type');
    if (!(error instanceof Map)) return `expected error ${type}, got an output`;
    return write(error.get('type') ?? null, true) === write(type, true) ? null
      : `expected error ${type}, got error ${error.get('type')}`;
  }
  if (!actual.has('output')) return `expected an output, got ${write(actual.get('error') ?? null, true)}`;
  let want = expected.get('output');
  let got = actual.get('output');
  if (TIE_KEYS[area]) {
    want = tieNormal(want, TIE_KEYS[area]);
    got = tieNormal(got, TIE_KEYS[area]);
  }
  return write(want, true) === write(got, true) ? null
    : `the output differs: expected ${short(write(expected.get('output')))}, got ${short(write(actual.get('output')))}`;
}

/** The capabilities request of docs/protocol/v2.md: how an implementation says what it speaks. */
export const CAPABILITIES_REQUEST = '{"id":0,"area":"capabilities","input":{}}';

const strings = (v) => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : null);

/**
 * What an implementation speaks and supports, from its answer to the capabilities request (the
 * answer line, or null if it gave none): { protocol, features, unmodelledKeys, unsupported, source,
 * warning }. As flinkspec.impls.capabilities reads it: an error answer (a BadRequest: it does not
 * know the extension) declares protocol 1 and nothing else; so does an answer of the wrong shape,
 * or none at all, with a warning.
 */
export function capabilitiesFrom(line) {
  const none = (source, warning) => ({
    protocol: 1, features: [], unmodelledKeys: [], unsupported: [], source, warning,
  });
  if (line === null) return none('no answer to the capabilities request', 'the implementation gave no answer to the capabilities request; taken as protocol 1');
  let answer;
  try {
    answer = parse(line);
  } catch (err) {
    return none('its capabilities answer is not JSON', `its answer to the capabilities request is not JSON (${err.message}); taken as protocol 1`);
  }
  if (!(answer instanceof Map)) return none('its capabilities answer is not an object', 'its answer to the capabilities request is not an object; taken as protocol 1');
  const out = answer.get('output');
  if (!(out instanceof Map)) return none('it answers the capabilities request with an error', null);
  const plain = (v) => (v instanceof Map ? Object.fromEntries([...v].map(([k, x]) => [k, plain(x)]))
    : Array.isArray(v) ? v.map(plain) : v instanceof Num ? Number(v.literal) : v);
  const caps = plain(out);
  const protocol = caps.protocol ?? 1;
  const features = strings(caps.features ?? []);
  const unmodelledKeys = strings(caps.unmodelled_keys ?? []);
  const unsupported = Array.isArray(caps.unsupported ?? []) ? (caps.unsupported ?? []) : null;
  if (!Number.isInteger(protocol) || protocol < 1 || !features || !unmodelledKeys || !unsupported
      || !unsupported.every((u) => u && typeof u === 'object' && !Array.isArray(u))) {
    return none('its capabilities answer is of the wrong shape', `its answer to the capabilities request is not of the shape of docs/protocol/v2.md (${short(line)}); taken as protocol 1`);
  }
  return { protocol, features, unmodelledKeys, unsupported, source: 'its answer to the capabilities request', warning: null };
}

/**
 * Asks `command` (argv array) the capabilities request: starts it, sends the request, closes its
 * stdin and reads one line (at most `timeoutMs`), then stops it. Resolves to capabilitiesFrom(line).
 */
export function negotiate(command, { timeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(command[0], command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
    let line = null;
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    proc.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    proc.stdin.on('error', () => {}); // it went away: no answer
    const lines = createInterface({ input: proc.stdout });
    lines.on('line', (text) => {
      if (line === null) line = text;
      proc.kill();
    });
    lines.on('close', () => {
      clearTimeout(timer);
      resolve(capabilitiesFrom(line));
    });
    proc.stdin.end(`${CAPABILITIES_REQUEST}\n`);
  });
}

/** The capabilities `--protocol N [--features A,..]` state, without asking the implementation. */
export function declared(protocol, features = []) {
  return { protocol, features, unmodelledKeys: [], unsupported: [], source: `--protocol ${protocol}`, warning: null };
}

const names = (v) => (v === undefined ? null : Array.isArray(v) ? v : [v]);

/** Whether a declared `flink` selector names `release`: "1.15" names 1.15 and its patches. */
const selects = (declared, release) => declared.some((d) => d === release || release.startsWith(`${d}.`));

/**
 * Why the implementation is not held to vector `v` (a Map, as parsed), or null: a feature it does
 * not speak (a feature is spoken when it is declared or the implementation's protocol is at least
 * the vector's), an area, release or rule it declares unsupported, a config key it does not model.
 */
export function notChecked(v, caps) {
  const request = v.get('request');
  const area = request.get('area');
  const release = request.get('flink');
  const protocol = Number(v.get('protocol').literal);
  if (protocol > caps.protocol) {
    const missing = (v.get('features') ?? []).filter((f) => !caps.features.includes(f));
    if (missing.length) return `needs protocol ${protocol} feature ${missing[0]}`;
  }
  const rules = v.get('rules') ?? [];
  for (const u of caps.unsupported) {
    const a = names(u.area);
    const f = names(u.flink);
    const r = names(u.rule);
    if ((a && !a.includes(area)) || (f && !selects(f, release))) continue;
    if (!r) return `not supported: ${u.why || 'declared by the implementation'}`;
    const hit = rules.find((x) => r.includes(x));
    if (hit) return `rule ${hit} not supported: ${u.why || 'declared by the implementation'}`;
  }
  const config = request.get('input') instanceof Map ? request.get('input').get('config') : undefined;
  if (config instanceof Map) {
    const key = [...config.keys()].find((k) => caps.unmodelledKeys.includes(k));
    if (key !== undefined) return `needs config key ${key}`;
  }
  return null;
}

/**
 * The vectors of a bundle (only those areas / releases if given), each file checked against the
 * manifest's sha256. A vector the implementation is not held to (notChecked, with `caps` from
 * negotiate or declared; default: everything spoken) is left out and counted by why in
 * `notChecked` (a Map why -> count), never failed.
 */
export function load(bundle, { areas = [], releases = [], caps = declared(Infinity) } = {}) {
  const manifest = parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
  const files = [];
  const skipped = new Map();
  for (const area of [...manifest.get('areas').keys()].sort()) {
    if (areas.length && !areas.includes(area)) continue;
    for (const [release, entry] of manifest.get('areas').get(area)) {
      if (releases.length && !releases.includes(release)) continue;
      const data = readFileSync(join(bundle, entry.get('file')));
      if (createHash('sha256').update(data).digest('hex') !== entry.get('sha256')) {
        throw new Error(`${entry.get('file')}: sha256 does not match manifest.json`);
      }
      const vectors = [];
      let left = 0;
      for (const line of gunzipSync(data).toString('utf8').split('\n')) {
        if (!line) continue;
        const v = parse(line);
        const why = notChecked(v, caps);
        if (why) {
          skipped.set(why, (skipped.get(why) ?? 0) + 1);
          left += 1;
          continue;
        }
        const kinds = v.get('why').map((w) => w.get('kind') + (w.has('mutant') ? `:${w.get('mutant')}` : '')).join(',');
        vectors.push({ id: v.get('id'), area, request: v.get('request'), answer: v.get('answer'), why: kinds });
      }
      files.push({ area, release, vectors, notChecked: left });
    }
  }
  return { manifest, files, notChecked: skipped };
}

/** What `caps` says, in one line. */
export function capabilitiesLine(caps) {
  const features = caps.features.length ? caps.features.join(', ') : 'none';
  return `the implementation speaks protocol ${caps.protocol}, extra features: ${features} (${caps.source})`;
}

/** The lines that account for the vectors not checked, most frequent reason first. */
export function notCheckedLines(counts) {
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([why, n]) => `${n} not checked: ${why}`);
}

/**
 * Sends every vector's request to `command` (argv array) and compares the answers, in order.
 * Resolves to the failures: [{ vector, why }].
 */
export function run(vectors, command, { timeoutMs = 600_000 } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(command[0], command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
    const failures = [];
    let n = 0;
    const timer = setTimeout(() => {
      process.stderr.write(`the implementation took longer than ${timeoutMs / 1000} s: stopped\n`);
      proc.kill('SIGKILL');
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      for (; n < vectors.length; n += 1) {
        failures.push({ vector: vectors[n], why: 'no answer (the implementation ended)' });
      }
      resolve(failures);
    };
    proc.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    proc.stdin.on('error', () => {}); // the implementation went away: the missing answers fail
    const lines = createInterface({ input: proc.stdout });
    lines.on('line', (line) => {
      if (n >= vectors.length) return;
      const v = vectors[n];
      n += 1;
      let why;
      try {
        const actual = parse(line);
        const id = actual instanceof Map ? actual.get('id') : undefined;
        if (!(actual instanceof Map)) why = 'the answer is not a JSON object';
        else if (!(id instanceof Num) || id.normal() !== new Num(String(n)).normal()) {
          why = `the answer has id ${write(id ?? null, true)}, not ${n}`;
        } else why = disagreement(v.area, v.answer, actual);
      } catch (err) {
        why = `the answer is not JSON: ${err.message}`;
      }
      if (why) failures.push({ vector: v, why });
      if (n === vectors.length) {
        proc.stdin.end();
        proc.kill();
      }
    });
    lines.on('close', finish);
    for (let k = 0; k < vectors.length; k += 1) {
      const req = new Map([['id', new Num(String(k + 1))], ...vectors[k].request]);
      proc.stdin.write(`${write(req)}\n`);
    }
    if (vectors.length === 0) proc.stdin.end();
  });
}
