// node --test runners/js/vectors.test.mjs
// One test per area and release of the bundle, run against one implementation process (docs/vectors.md):
//   VECTORS_BUNDLE    the bundle directory (default: ../../flinkspec/vectors_bundle)
//   VECTORS_IMPL      the implementation's command line, split on spaces (default: flinkspec serve --impl oracle)
//   VECTORS_PROTOCOL  the protocol version it speaks (default: ask it, with the capabilities request)
//   VECTORS_FEATURES  with VECTORS_PROTOCOL: comma-separated features it speaks beyond that version
//   VECTORS_AREA, VECTORS_FLINK  comma-separated areas / releases to run (default: all)
//   VECTORS_TIMEOUT   seconds the whole run may take (default 600)
// Vectors the implementation does not speak or declares unsupported are not checked (a test whose
// vectors are all not checked is skipped with the why), never failed.

import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';

import { capabilitiesLine, declared, load, negotiate, notCheckedLines, run } from './vectors.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const env = process.env;
const bundle = env.VECTORS_BUNDLE ?? `${here}../../flinkspec/vectors_bundle`;
const command = (env.VECTORS_IMPL ?? 'flinkspec serve --impl oracle').split(' ').filter(Boolean);
const split = (text) => (text ? text.split(',').filter(Boolean) : []);
const timeoutMs = 1000 * Number(env.VECTORS_TIMEOUT ?? 600);
const caps = env.VECTORS_PROTOCOL ? declared(Number(env.VECTORS_PROTOCOL), split(env.VECTORS_FEATURES))
  : await negotiate(command);
if (caps.warning) process.stderr.write(`warning: ${caps.warning}\n`);
const { files, notChecked } = load(bundle, { areas: split(env.VECTORS_AREA), releases: split(env.VECTORS_FLINK), caps });
const left = [...notChecked.values()].reduce((a, b) => a + b, 0);
const title = `flinkspec vectors against ${command.join(' ')}: ${capabilitiesLine(caps)}; ${left} not checked`;

describe(title, () => {
  const failing = new Map();
  before(async () => {
    for (const { vector, why } of await run(files.flatMap((f) => f.vectors), command, { timeoutMs })) {
      failing.set(vector.id, `${vector.id} [${vector.why}]: ${why}`);
    }
    for (const line of notCheckedLines(notChecked)) process.stdout.write(`${line}\n`);
  });
  for (const { area, release, vectors, notChecked: skipped } of files) {
    const name = `${area} at Flink ${release}: ${vectors.length} vectors` + (skipped ? `, ${skipped} not checked` : '');
    if (vectors.length === 0) {
      test(name, { skip: 'every vector needs what the implementation does not speak or support' }, () => {});
      continue;
    }
    test(name, () => {
      const mine = vectors.map((v) => failing.get(v.id)).filter(Boolean);
      assert.deepEqual(mine, [], `${mine.length} of ${vectors.length} vectors fail:\n${mine.join('\n')}`);
    });
  }
});
