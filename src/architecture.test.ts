import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(new URL(import.meta.url).pathname);

/** What a file loads at run time (type-only imports are erased): relative files and packages. */
function runtimeImports(file: string): { files: string[]; packages: string[] } {
  const files: string[] = [];
  const packages: string[] = [];
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/gm)) {
    if (match[2]) continue;
    const spec = match[3] as string;
    if (!spec.startsWith('.')) {
      packages.push(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));
      continue;
    }
    const resolved = path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
    if (existsSync(resolved)) files.push(resolved);
  }
  return { files, packages };
}

/** Every module a file loads at run time, following relative imports. */
function runtimeGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const found = runtimeImports(file);
    for (const p of found.packages) packages.add(p);
    for (const f of found.files) visit(f);
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

/** The folder of src/ a file is in (undefined for the top-level files that wire everything). */
function folderOf(file: string): string | undefined {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts.length > 1 ? parts[0] : undefined;
}

/** Which folders of src/ each folder loads at run time (tests excluded). */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => path.join(SRC, f));
  for (const file of files) {
    const from = folderOf(file);
    if (from === undefined) continue;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const imported of runtimeImports(file).files) {
      const to = folderOf(imported);
      if (to !== undefined && to !== from) edges.add(to);
    }
  }
  return graph;
}

/** The import cycles between folders: every path that comes back to where it started. */
function folderCycles(graph: Map<string, Set<string>>): string[] {
  const cycles: string[] = [];
  const done = new Set<string>();
  const visit = (folder: string, trail: string[]) => {
    const at = trail.indexOf(folder);
    if (at >= 0) {
      cycles.push([...trail.slice(at), folder].join(' -> '));
      return;
    }
    if (done.has(folder)) return;
    for (const next of graph.get(folder) ?? []) visit(next, [...trail, folder]);
    done.add(folder);
  };
  for (const folder of graph.keys()) visit(folder, []);
  return cycles;
}

describe('folder dependencies', () => {
  it('no folder of src/ imports, at run time, one that imports it back (directly or through others)', () => {
    expect(folderCycles(folderGraph())).toEqual([]);
  });

  it('the cycle check finds a cycle where there is one', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(folderCycles(graph)).toEqual(['a -> b -> c -> a']);
  });

  it('transactions/ and reminders/ share the reminder schedule through a lower folder', () => {
    const graph = folderGraph();
    expect(graph.get('transactions')?.has('reminder-schedule')).toBe(true);
    expect(graph.get('transactions')?.has('reminders')).toBe(false);
    expect(graph.get('reminder-schedule')?.has('reminders')).toBe(false);
  });
});
