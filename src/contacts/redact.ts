/** What an erased contact is called from then on (PRODUCT part 24). */
export const ERASED_NAME = 'Erased buyer';

/**
 * The name key of an erased contact: a leading space (contactNameKey trims, so no name ever
 * makes a key that starts with one: the contact is never found by name and takes no name from
 * anyone) and its id spelled in private-use characters (unique per contact, so erased contacts
 * never collide with each other, and no search text typed by a person matches it).
 */
export function erasedNameKey(contactId: string): string {
  return ` ${[...contactId].map((ch) => String.fromCodePoint(0xe000 + ch.charCodeAt(0))).join('')}`;
}

/** Keys whose value names or reaches the buyer, in the stored shapes (events, responses). */
const NAME_KEYS = new Set(['contactName', 'contact_name']);
const PHONE_KEYS = new Set(['contactPhone', 'contact_phone']);

export interface Personal {
  /** the names to take out (the contact's current name) */
  names: readonly string[];
  /** the phones to take out (digits as stored) */
  phones: readonly string[];
}

/**
 * A stored JSON value with a buyer's personal data taken out: the contact's name fields become
 * "Erased buyer" and its phone fields null, whatever they held (an event written before a rename
 * holds an older name); any other text holding the name or phone has it replaced. Everything
 * else (amounts, dates, ids) is left exactly as it was.
 */
export function redactPersonal(value: unknown, personal: Personal): unknown {
  if (typeof value === 'string') return redactText(value, personal);
  if (Array.isArray(value)) return value.map((v) => redactPersonal(v, personal));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (NAME_KEYS.has(key) && typeof v === 'string') out[key] = ERASED_NAME;
    else if (PHONE_KEYS.has(key) && typeof v === 'string') out[key] = null;
    else out[key] = redactPersonal(v, personal);
  }
  // A contact's own shape ({id, name, phone, ...}: contact.created, a contact response).
  if (typeof out.name === 'string' && personal.names.includes(out.name as string)) out.name = ERASED_NAME;
  if (typeof out.phone === 'string' && personal.phones.includes(out.phone as string)) out.phone = null;
  return out;
}

function redactText(text: string, personal: Personal): string | null {
  if (personal.phones.includes(text)) return null;
  let out = text;
  for (const name of personal.names) if (name.length >= 2) out = out.split(name).join(ERASED_NAME);
  for (const phone of personal.phones) if (phone.length >= 6) out = out.split(phone).join('');
  return out;
}

/** A stored JSON text redacted (unchanged text when nothing in it is personal). */
export function redactJsonText(text: string, personal: Personal): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(redactPersonal(parsed, personal));
}
