import { CompiledQuery } from 'kysely';
import type { Executor } from '../schema.js';
import { preparedStatement } from './queries.js';

/** How many distinct statements writeTogether keeps (made once, sent as named prepared statements). */
const TOGETHER_PREPARED_MAX = 64;

/** The statements writeTogether has made, by the texts of their parts in order (see togetherText). */
interface TogetherNode {
  next: Map<string, TogetherNode>;
  text?: string;
}
const together: TogetherNode = { next: new Map() };
let togetherKept = 0;

/**
 * PostgreSQL (issue 26): several writes whose results nobody reads, sent as ONE statement (one
 * round trip) of data-modifying CTEs: `writes` in order, then `last`, itself a statement that may
 * start with its own WITH list. All or nothing, like any statement; foreign keys between them
 * are checked at its end, so a row may refer to one inserted by an earlier part.
 */
export async function writeTogether(db: Executor, writes: readonly CompiledQuery[], last: CompiledQuery) {
  const parameters: unknown[] = [];
  for (const q of writes) for (const p of q.parameters) parameters.push(p);
  for (const p of last.parameters) parameters.push(p);
  await db.executeQuery(CompiledQuery.raw(togetherText(writes, last), parameters));
}

/**
 * The text of writeTogether's statement, made once per sequence of part texts: the parts' texts
 * are kept strings (compiled once per shape), so finding it is a few map lookups, where making it
 * renumbers every parameter of every part.
 */
function togetherText(writes: readonly CompiledQuery[], last: CompiledQuery): string {
  let node = together;
  for (const q of [...writes, last]) {
    let next = node.next.get(q.sql);
    if (!next) {
      if (togetherKept >= TOGETHER_PREPARED_MAX) return makeTogetherText(writes, last);
      next = { next: new Map() };
      node.next.set(q.sql, next);
    }
    node = next;
  }
  if (node.text === undefined) {
    node.text = makeTogetherText(writes, last);
    togetherKept++;
    preparedStatement(node.text);
  }
  return node.text;
}

function makeTogetherText(writes: readonly CompiledQuery[], last: CompiledQuery): string {
  let offset = 0;
  const renumber = (q: CompiledQuery) => {
    const from = offset;
    offset += q.parameters.length;
    return q.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + from}`);
  };
  const parts = writes.map((q, i) => `w${i} as (${renumber(q)})`);
  const tail = renumber(last);
  return /^with\s/i.test(tail)
    ? `with ${parts.join(', ')}, ${tail.replace(/^with\s+/i, '')}`
    : `with ${parts.join(', ')} ${tail}`;
}
