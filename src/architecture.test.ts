import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(new URL(import.meta.url).pathname);

/** Every module a file loads at run time (type-only imports are erased), following relative imports. */
function runtimeGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/gm)) {
      if (match[2]) continue;
      const spec = match[3] as string;
      if (!spec.startsWith('.')) {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));
        continue;
      }
      const resolved = path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
      if (existsSync(resolved)) visit(resolved);
    }
  };
  visit(path.join(SRC, entry));
  return { files, packages };
}

describe('module graph', () => {
  it.each(['bootstrap.ts', 'cli.ts', 'worker.ts'])('%s does not load the HTTP application (Fastify)', (entry) => {
    const { files, packages } = runtimeGraph(entry);
    expect(files.has(path.join(SRC, 'app.ts'))).toBe(false);
    expect(packages.has('fastify')).toBe(false);
  });

  it('the graph walk sees Fastify where it is loaded (server.ts)', () => {
    const { files, packages } = runtimeGraph('server.ts');
    expect(files.has(path.join(SRC, 'app.ts'))).toBe(true);
    expect(packages.has('fastify')).toBe(true);
  });
});
