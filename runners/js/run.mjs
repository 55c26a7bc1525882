#!/usr/bin/env node
// node runners/js/run.mjs [--protocol N] [--area A,..] [--flink V,..] BUNDLE COMMAND [ARG...]
// Runs every vector of BUNDLE against COMMAND (a protocol implementation on stdin/stdout), prints
// one line per failing vector and then "N passed, N failed"; exits 0 only when nothing failed.

import { load, run } from './vectors.mjs';

const args = process.argv.slice(2);
const opts = { areas: [], releases: [], protocol: Infinity };
while (args.length && args[0].startsWith('--')) {
  const [flag, value] = args.splice(0, 2);
  if (flag === '--protocol') opts.protocol = Number(value);
  else if (flag === '--area') opts.areas = value.split(',');
  else if (flag === '--flink') opts.releases = value.split(',');
  else {
    process.stderr.write(`unknown option ${flag}\n`);
    process.exit(2);
  }
}
if (args.length < 2) {
  process.stderr.write('usage: run.mjs [--protocol N] [--area A,..] [--flink V,..] BUNDLE COMMAND [ARG...]\n');
  process.exit(2);
}
const [bundle, ...command] = args;
const { files, skipped } = load(bundle, opts);
const vectors = files.flatMap((f) => f.vectors);
const failures = await run(vectors, command);
for (const { vector, why } of failures) console.log(`FAIL ${vector.id} [${vector.why}]: ${why}`);
if (skipped) console.log(`${skipped} skipped (they need a protocol newer than ${opts.protocol})`);
console.log(`${vectors.length - failures.length} passed, ${failures.length} failed`);
process.exitCode = failures.length === 0 && vectors.length > 0 ? 0 : 1;
