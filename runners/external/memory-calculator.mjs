// An adapter: Robert Metzger's TaskManager memory calculator
// (https://github.com/rmetzger/flink-memory-calculator, a JavaScript port of Flink's
// TaskExecutorFlinkMemoryUtils / ProcessMemoryUtils written outside this project) behind the
// conformance protocol, area memory.taskmanager. Its code is not copied here: the adapter loads the
// calculator's own index.html from the path given, evaluates its <script> with the DOM stubbed (as
// the calculator's verify.js does), and answers each request with its computeSpec().
//
//   flinkspec check --impl "cmd:node runners/external/memory-calculator.mjs PATH/index.html" \
//     --area memory.taskmanager --flink all
//
// What the adapter adds is only the protocol's spelling: the calculator's fields under the protocol's
// names, and its errors (it throws a plain Error) as InvalidConfiguration, with the exception Flink
// throws for that kind of failure: IllegalArgumentException where a value does not parse (Flink's
// MemorySize.parse and Float.parseFloat), IllegalConfigurationException otherwise. The calculator
// models one Flink (its defaults are those of 2.x) and knows no version: the request's flink is ignored.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import vm from 'node:vm';

const page = process.argv[2];
if (!page) {
  process.stderr.write('usage: node memory-calculator.mjs PATH/TO/flink-memory-calculator/index.html\n');
  process.exit(2);
}
const script = readFileSync(page, 'utf-8').match(/<script>([\s\S]*?)<\/script>/);
if (!script) {
  process.stderr.write(`${page}: no <script> block\n`);
  process.exit(2);
}
const stub = { innerHTML: '', textContent: '', value: '', classList: { toggle() {}, remove() {} },
  addEventListener() {}, querySelectorAll: () => [] };
const ctx = vm.createContext({ document: { getElementById: () => stub, querySelectorAll: () => [] } });
vm.runInContext(`${script[1].replace(/\/\/ Initial render[\s\S]*$/, '')}
this.computeSpec = computeSpec; this.userConfig = userConfig; this.OPTIONS = OPTIONS;`, ctx);

const PARSE_FAILURES = /parse|does not start with a number|empty- or whitespace-only|not a valid number|cannot be represented|does not match any recognized unit/;

function answer(input) {
  if (typeof input !== 'object' || input === null || typeof input.config !== 'object' || input.config === null) {
    return { error: { type: 'BadRequest', message: 'input.config must be an object' } };
  }
  for (const o of ctx.OPTIONS) ctx.userConfig[o.key] = '';
  for (const [key, value] of Object.entries(input.config)) {
    if (typeof value !== 'string') return { error: { type: 'BadRequest', message: `input.config.${key} must be a string` } };
    ctx.userConfig[key] = value;  // keys the calculator does not know are kept and never read, as Flink ignores them
  }
  let spec;
  try {
    spec = ctx.computeSpec();
  } catch (e) {
    const exception = PARSE_FAILURES.test(e.message) ? 'IllegalArgumentException' : 'IllegalConfigurationException';
    return { error: { type: 'InvalidConfiguration', exception, message: e.message } };
  }
  const fm = spec.flinkMemory;
  return { output: {  // BigInts: write() gives them as JSON integers of every digit
    framework_heap: fm.frameworkHeap, task_heap: fm.taskHeap, framework_off_heap: fm.frameworkOffHeap,
    task_off_heap: fm.taskOffHeap, network: fm.network, managed: fm.managed,
    jvm_metaspace: spec.metaspace, jvm_overhead: spec.overhead, total_flink: fm.totalFlink,
    total_process: spec.totalProcess,
    jvm_args: { Xmx: fm.jvmHeap, Xms: fm.jvmHeap, MaxDirectMemorySize: fm.jvmDirect, MaxMetaspaceSize: spec.metaspace },
  } };
}

// JSON with BigInts as integers of every digit (sizes are Java longs; a double would round them)
function write(message) {
  const text = JSON.stringify(message, (_, v) => (typeof v === 'bigint' ? `\u0000${v}\u0000` : v));
  process.stdout.write(`${text.replace(/"\\u0000(-?\d+)\\u0000"/g, '$1')}\n`);
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    write({ id: null, error: { type: 'BadRequest', message: `not JSON: ${e.message}` } });
    continue;
  }
  const body = request.area === 'memory.taskmanager'
    ? answer(request.input)
    : { error: { type: 'BadRequest', message: `area ${request.area} is not modelled (memory.taskmanager only)` } };
  write({ id: request.id, ...body });
}
