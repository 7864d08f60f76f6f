// A node:test reporter that writes one JSON line per finished test (`{ outcome, file, name }`),
// which `cargo xtask e2e --repeat N` reads to count each test's failures over its runs.
import path from 'node:path';

export default async function* results(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, nesting } = event.data;
    yield `${JSON.stringify({
      outcome: event.type === 'test:pass' ? 'pass' : 'fail',
      file: file ? path.basename(file) : null,
      name,
      nesting,
    })}\n`;
  }
}
