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

/** Every source file of src/ (tests excluded), as a path relative to src/. */
function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.test-support.ts'))
    .sort();
}

/** Every module a file names, at run time or for its types, statically or with import(). */
function namedModules(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?[^'";]*?from\s+'([^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1] as string);
  return specs.map((spec) =>
    spec.startsWith('.') ? path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), spec)) : spec,
  );
}

/** What only src/db may name: the drivers, the dialects' adapters, the adapters' folders and the migrations. */
function storeOnly(module: string): boolean {
  return (
    ['pg', 'better-sqlite3', 'pg-cursor'].includes(module) || /^db\/(sqlite|postgres|migrations)(\/|\.js$)/.test(module)
  );
}

const KYSELY_DIALECT = /\b(Postgres|Sqlite)(Adapter|Dialect|Driver|Introspector|QueryCompiler)\b/;
const STORE_QUESTION = /isPostgres|storeKind|store\.kind/;

describe('only src/db knows which store it runs on', () => {
  const outside = sourceFiles().filter((f) => !f.startsWith(`db${path.sep}`));

  it('nothing outside src/db imports a driver, a store adapter or a migration', () => {
    const found = outside.flatMap((f) =>
      namedModules(f)
        .filter(storeOnly)
        .map((m) => `${f} -> ${m}`),
    );
    expect(found).toEqual([]);
  });

  it("nothing outside src/db names Kysely's dialect adapters or asks which store it is on", () => {
    const found = outside.filter((f) => {
      const text = readFileSync(path.join(SRC, f), 'utf8');
      return KYSELY_DIALECT.test(text) || STORE_QUESTION.test(text);
    });
    expect(found).toEqual([]);
  });

  it('the checks see a driver, an adapter, a migration and a store question where there is one', () => {
    expect(['pg', 'db/sqlite/driver.js', 'db/postgres/pool.js', 'db/migrations/index.js'].every(storeOnly)).toBe(true);
    expect(['kysely', 'db/port.js', 'db/schema.js', 'pino'].some(storeOnly)).toBe(false);
    expect(namedModules(path.join('db', 'store.ts'))).toContain(path.join('db', 'sqlite', 'store.js'));
    expect(KYSELY_DIALECT.test('x instanceof PostgresAdapter')).toBe(true);
    expect(STORE_QUESTION.test('if (isPostgres(db))')).toBe(true);
  });
});

describe('layers', () => {
  const files = sourceFiles();
  const isService = (f: string) => /(^|[/\\])[\w-]*service\.ts$/.test(f);
  const isRepository = (f: string) => /(^|[/\\])[\w-]*repository\.ts$/.test(f);

  it('no service imports http/', () => {
    const found = files.filter(isService).flatMap((f) =>
      namedModules(f)
        .filter((m) => m.startsWith(`http${path.sep}`))
        .map((m) => `${f} -> ${m}`),
    );
    expect(found).toEqual([]);
  });

  it('no repository imports a service', () => {
    const found = files.filter(isRepository).flatMap((f) =>
      namedModules(f)
        .filter((m) => /service\.js$/.test(m))
        .map((m) => `${f} -> ${m}`),
    );
    expect(found).toEqual([]);
  });

  it('the layer checks know a service and a repository when they see one', () => {
    expect(isService(path.join('bulk', 'service.ts'))).toBe(true);
    expect(isService(path.join('transactions', 'repository.ts'))).toBe(false);
    expect(isRepository(path.join('webhooks', 'queue-repository.ts'))).toBe(true);
    expect(files.filter(isService).length).toBeGreaterThan(5);
    expect(files.filter(isRepository).length).toBeGreaterThan(5);
  });
});

/** A statement that would change or remove audit entries: Kysely's or SQL's. */
const AUDIT_REWRITE = /(updateTable|deleteFrom)\(\s*'audit_log'|\b(update|delete\s+from|truncate)\s+"?audit_log\b/i;

describe('the audit log is written by src/audit only, and never rewritten', () => {
  const files = sourceFiles();

  it('nothing outside src/audit and src/db names the audit_log table', () => {
    const found = files.filter(
      (f) =>
        !f.startsWith(`audit${path.sep}`) &&
        !f.startsWith(`db${path.sep}`) &&
        readFileSync(path.join(SRC, f), 'utf8').includes('audit_log'),
    );
    expect(found).toEqual([]);
  });

  it("only the erase's redaction (audit/redact.ts) updates entries; nothing deletes them", () => {
    const found = files.filter(
      (f) =>
        f !== path.join('audit', 'redact.ts') &&
        !f.startsWith(`db${path.sep}migrations${path.sep}`) &&
        AUDIT_REWRITE.test(readFileSync(path.join(SRC, f), 'utf8')),
    );
    expect(found).toEqual([]);
    expect(readFileSync(path.join(SRC, 'audit', 'redact.ts'), 'utf8')).not.toMatch(/deleteFrom\(\s*'audit_log'/);
  });

  it('the checks see an update or delete of audit_log where there is one', () => {
    expect(AUDIT_REWRITE.test("db.updateTable('audit_log').set({})")).toBe(true);
    expect(AUDIT_REWRITE.test("trx.deleteFrom( 'audit_log')")).toBe(true);
    expect(AUDIT_REWRITE.test('sql`delete from audit_log where id = 1`')).toBe(true);
    expect(AUDIT_REWRITE.test('sql`UPDATE audit_log SET changes = 1`')).toBe(true);
    expect(AUDIT_REWRITE.test("db.selectFrom('audit_log')")).toBe(false);
    expect(AUDIT_REWRITE.test("insertEach(trx, 'audit_log', rows)")).toBe(false);
    expect(readFileSync(path.join(SRC, 'audit', 'redact.ts'), 'utf8')).toMatch(AUDIT_REWRITE);
  });
});
