#!/usr/bin/env node
// node runners/js/run.mjs [--protocol N [--features A,..]] [--area A,..] [--flink V,..] [--timeout S] BUNDLE COMMAND [ARG...]
// Runs the vectors of BUNDLE against COMMAND (a protocol implementation on stdin/stdout). Without
// --protocol it first asks COMMAND what it speaks (the capabilities request, docs/protocol/v2.md);
// vectors it does not speak or declares unsupported are not checked (counted, never failed). Prints
// one line per failing vector, then "N passed, N failed, N not checked"; exits 0 only when nothing
// failed and something passed (docs/vectors.md).

import { capabilitiesLine, declared, load, negotiate, notCheckedLines, run } from './vectors.mjs';

const usage = 'usage: run.mjs [--protocol N [--features A,..]] [--area A,..] [--flink V,..] [--timeout S] BUNDLE COMMAND [ARG...]\n';
const args = process.argv.slice(2);
const opts = { areas: [], releases: [] };
let protocol = null;
let features = [];
let timeoutMs = 600_000;
while (args.length && args[0].startsWith('--')) {
  const [flag, value] = args.splice(0, 2);
  if (value === undefined) {
    process.stderr.write(`${flag} needs a value\n${usage}`);
    process.exit(2);
  }
  if (flag === '--protocol' && /^[1-9]\d*$/.test(value)) protocol = Number(value);
  else if (flag === '--features') features = value.split(',').filter(Boolean);
  else if (flag === '--area') opts.areas = value.split(',');
  else if (flag === '--flink') opts.releases = value.split(',');
  else if (flag === '--timeout' && Number(value) > 0) timeoutMs = Number(value) * 1000;
  else {
    process.stderr.write(`bad option ${flag} ${value}\n${usage}`);
    process.exit(2);
  }
}
if (args.length < 2) {
  process.stderr.write(usage);
  process.exit(2);
}
const [bundle, ...command] = args;
let caps;
try {
  caps = protocol === null ? await negotiate(command) : declared(protocol, features);
} catch (err) {
  process.stderr.write(`cannot start ${command.join(' ')}: ${err.message}\n`);
  process.exit(2);
}
if (caps.warning) process.stderr.write(`warning: ${caps.warning}\n`);
console.log(capabilitiesLine(caps));
const { files, notChecked } = load(bundle, { ...opts, caps });
const vectors = files.flatMap((f) => f.vectors);
const failures = await run(vectors, command, { timeoutMs });
for (const { vector, why } of failures) console.log(`FAIL ${vector.id} [${vector.why}]: ${why}`);
for (const line of notCheckedLines(notChecked)) console.log(line);
const left = [...notChecked.values()].reduce((a, b) => a + b, 0);
console.log(`${vectors.length - failures.length} passed, ${failures.length} failed, ${left} not checked`);
process.exitCode = failures.length === 0 && vectors.length > 0 ? 0 : 1;
