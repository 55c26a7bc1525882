// Loads flinkspec's conformance test vectors (docs/vectors.md) and runs them against any
// implementation of the protocol (docs/protocol/v1.md): a program reading JSON-line requests on stdin
// and writing one JSON-line answer per request on stdout. Node's standard library only.
//
// An output is compared by exact JSON equality (numbers by value, never through a double: Flink's
// longs do not fit one; in watermark.timers timers with equal timestamps may come in any order), an
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

/** watermark.timers' tie rule: each step's timestamps in order, its timers as a sorted multiset. */
export function tieNormal(output) {
  if (!(output instanceof Map) || !Array.isArray(output.get('fired'))) return output;
  const steps = [];
  for (const step of output.get('fired')) {
    if (!Array.isArray(step) || !step.every((t) => t instanceof Map)) return output;
    steps.push(new Map([
      ['timestamps', step.map((t) => t.get('timestamp') ?? null)],
      ['timers', step.map((t) => write(t, true)).sort()],
    ]));
  }
  return new Map([...output, ['fired', steps]]);
}

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
  if (area === 'watermark.timers') {
    want = tieNormal(want);
    got = tieNormal(got);
  }
  return write(want, true) === write(got, true) ? null
    : `the output differs: expected ${short(write(expected.get('output')))}, got ${short(write(actual.get('output')))}`;
}

/**
 * The vectors of a bundle (only those areas / releases if given), each file checked against the
 * manifest's sha256; vectors needing a protocol newer than `protocol` are counted as skipped.
 */
export function load(bundle, { areas = [], releases = [], protocol = Infinity } = {}) {
  const manifest = parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
  const files = [];
  let skipped = 0;
  for (const area of [...manifest.get('areas').keys()].sort()) {
    if (areas.length && !areas.includes(area)) continue;
    for (const [release, entry] of manifest.get('areas').get(area)) {
      if (releases.length && !releases.includes(release)) continue;
      const data = readFileSync(join(bundle, entry.get('file')));
      if (createHash('sha256').update(data).digest('hex') !== entry.get('sha256')) {
        throw new Error(`${entry.get('file')}: sha256 does not match manifest.json`);
      }
      const vectors = [];
      for (const line of gunzipSync(data).toString('utf8').split('\n')) {
        if (!line) continue;
        const v = parse(line);
        if (Number(v.get('protocol').literal) > protocol) {
          skipped += 1;
          continue;
        }
        const why = v.get('why').map((w) => w.get('kind') + (w.has('mutant') ? `:${w.get('mutant')}` : '')).join(',');
        vectors.push({ id: v.get('id'), area, request: v.get('request'), answer: v.get('answer'), why });
      }
      files.push({ area, release, vectors });
    }
  }
  return { manifest, files, skipped };
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
