// node --test runners/js/vectors.test.mjs
// One test per area and release of the bundle, run against one implementation process:
//   VECTORS_BUNDLE  the bundle directory (default: ../../flinkspec/vectors_bundle)
//   VECTORS_IMPL    the implementation's command line, split on spaces (default: flinkspec serve --impl oracle)
//   VECTORS_PROTOCOL the protocol version it speaks (default: every vector)
//   VECTORS_AREA, VECTORS_FLINK  comma-separated areas / releases to run (default: all)

import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';

import { load, run } from './vectors.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const bundle = process.env.VECTORS_BUNDLE ?? `${here}../../flinkspec/vectors_bundle`;
const command = (process.env.VECTORS_IMPL ?? 'flinkspec serve --impl oracle').split(' ').filter(Boolean);
const split = (text) => (text ? text.split(',') : []);
const { files, skipped } = load(bundle, {
  areas: split(process.env.VECTORS_AREA),
  releases: split(process.env.VECTORS_FLINK),
  protocol: process.env.VECTORS_PROTOCOL ? Number(process.env.VECTORS_PROTOCOL) : Infinity,
});

describe(`flinkspec vectors against ${command.join(' ')} (${skipped} skipped for their protocol)`, () => {
  const failing = new Map();
  before(async () => {
    for (const { vector, why } of await run(files.flatMap((f) => f.vectors), command)) {
      failing.set(vector.id, `${vector.id} [${vector.why}]: ${why}`);
    }
  });
  for (const { area, release, vectors } of files) {
    test(`${area} at Flink ${release}: ${vectors.length} vectors`, () => {
      const mine = vectors.map((v) => failing.get(v.id)).filter(Boolean);
      assert.deepEqual(mine, [], `${mine.length} of ${vectors.length} vectors fail:\n${mine.join('\n')}`);
    });
  }
});
