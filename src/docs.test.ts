import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The documentation check (run with the unit tests, so in CI): every relative link resolves (the
 * file, and the heading when one is named), every `npm run` script named exists, every
 * environment variable named is one the configuration reads and every one it reads is named, and
 * nothing points at documents a reader of the repository does not have.
 */
const ROOT = path.resolve(import.meta.dirname, '..');

function markdownFiles(): string[] {
  const files = ['README.md', 'CHANGELOG.md', 'bench/README.md'];
  const walk = (dir: string) => {
    for (const name of readdirSync(path.join(ROOT, dir))) {
      const rel = path.join(dir, name);
      if (statSync(path.join(ROOT, rel)).isDirectory()) walk(rel);
      else if (name.endsWith('.md')) files.push(rel);
    }
  };
  if (existsSync(path.join(ROOT, 'docs'))) walk('docs');
  return files;
}

const FILES = markdownFiles();
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');

/** The text outside fenced code blocks, line by line (links and headings live there). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const plain = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function links(text: string): string[] {
  const out: string[] = [];
  for (const line of prose(text)) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const m of withoutCode.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push(m[1] as string);
  }
  return out;
}

/** Every variable src/config.ts reads: `env.NAME` and the names it passes to its readers. */
function configVariables(): Set<string> {
  const source = readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');
  const names = new Set<string>();
  for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1] as string);
  for (const m of source.matchAll(/\(env,\s*'([A-Z][A-Z0-9_]+)'/g)) names.add(m[1] as string);
  for (const m of source.matchAll(/env\['([A-Z][A-Z0-9_]+)'\]/g)) names.add(m[1] as string);
  return names;
}

/**
 * Upper-case names in the docs that are not the service's configuration: variables of the test
 * suite, the benchmarks and Node itself, and words that only look like variables.
 */
const NOT_CONFIGURATION = new Set([
  'TEST_DATABASE_URL',
  'TEST_REDIS_URL',
  'TEST_STORE',
  'PG_BENCH_URL',
  'BENCH_DATABASE_URL',
  'NODE_EXTRA_CA_CERTS',
  'NODE_ENV',
  'SQLITE_BUSY',
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SKIP_LOCKED',
  'PG_TRGM',
]);

/**
 * Names used as environment variables: `NAME` or `NAME=value` in code spans, and `NAME=` in
 * commands. Only names with an underscore: a shell variable of an example (`export KEY=...`) is
 * not configuration, and the one-word variables (PORT, HOST, WORKERS) are checked the other way.
 */
function variablesNamed(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=[^`]*)?`/g)) names.add(m[1] as string);
  for (const m of text.matchAll(/(?:^|[\s(`])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/gm)) names.add(m[1] as string);
  return names;
}

describe('the documentation', () => {
  it('is found: the README, the changelog, the benchmarks and docs/', () => {
    expect(FILES).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'bench/README.md']));
    expect(FILES.filter((f) => f.startsWith('docs')).length).toBeGreaterThan(0);
  });

  it('keeps the README at most 250 lines and the benchmarks page at most 400', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
    expect(read('bench/README.md').split('\n').length).toBeLessThanOrEqual(400);
  });

  it('has no relative link that does not resolve, to a file or to a heading in it', () => {
    const broken: string[] = [];
    for (const file of FILES) {
      for (const link of links(read(file))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
        const [target = '', anchor] = link.split('#');
        const resolved = target === '' ? file : path.normalize(path.join(path.dirname(file), target));
        if (!existsSync(path.join(ROOT, resolved))) {
          broken.push(`${file}: ${link} (no file ${resolved})`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && !anchors(read(resolved)).has(decodeURIComponent(anchor))) {
          broken.push(`${file}: ${link} (no heading #${anchor} in ${resolved})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('names only npm scripts that exist', () => {
    const scripts = Object.keys(JSON.parse(read('package.json')).scripts as Record<string, string>);
    const missing: string[] = [];
    for (const file of FILES) {
      for (const m of read(file).matchAll(/npm run(?:\s+-s)?\s+([a-z][\w:-]*)/g)) {
        if (!scripts.includes(m[1] as string)) missing.push(`${file}: npm run ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('names every variable the configuration reads, and only those', () => {
    const config = configVariables();
    expect(config.size).toBeGreaterThan(20);
    const all = FILES.map(read).join('\n');
    const unnamed = [...config].filter((name) => !new RegExp(`\\b${name}\\b`).test(all));
    expect(unnamed, 'read by src/config.ts, named in no doc').toEqual([]);
    const unknown: string[] = [];
    for (const file of FILES) {
      for (const name of variablesNamed(read(file))) {
        if (!config.has(name) && !NOT_CONFIGURATION.has(name)) unknown.push(`${file}: ${name}`);
      }
    }
    expect(unknown, 'named in the docs, read by no configuration').toEqual([]);
  });

  it('points at no document outside the repository and no issue number', () => {
    const found: string[] = [];
    for (const file of FILES) {
      read(file)
        .split('\n')
        .forEach((line, i) => {
          if (/\bPRODUCT\b|\bSPEC\b|ARCHITECTURE\.md/.test(line) || /\bissues? #?\d+|\bpart \d+\b/i.test(line)) {
            found.push(`${file}:${i + 1}: ${line.trim()}`);
          }
        });
    }
    expect(found).toEqual([]);
  });
});
