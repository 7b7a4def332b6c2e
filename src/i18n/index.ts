import { en } from './en.js';
import { hi } from './hi.js';

/**
 * The words of every page a person sees, one catalogue per language (en.ts, hi.ts). Look a phrase
 * up with `translator(language)(key, params)`; a language without a catalogue reads English.
 */
export type MessageKey = keyof typeof en;
export type Language = 'en' | 'hi';
export type Catalogue = Record<MessageKey, string>;

export const catalogues: Record<Language, Catalogue> = { en, hi };

/** The catalogue a stored language tag ('hi', 'hi-IN', 'en', ...) reads. */
export function languageOf(tag: string | null | undefined): Language {
  return tag?.toLowerCase().startsWith('hi') ? 'hi' : 'en';
}

/**
 * The language a browser asks for first (`Accept-Language: hi-IN,hi;q=0.9,en;q=0.8`), for the
 * pages that know no business or buyer yet (sign-in, an unknown pay link).
 */
export function acceptedLanguage(header: string | undefined): Language {
  return /^\s*hi\b/i.test(header ?? '') ? 'hi' : 'en';
}

/** Whether a text built at run time (e.g. `step_reason.${reason}`) is a key of the catalogue. */
export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

/** `t('dues.page', {page: 2, pages: 5})`: `{name}` in the phrase is replaced by `params.name`. */
export function translator(language: string): Translate {
  const table = catalogues[languageOf(language)];
  return (key, params) => {
    const text = table[key];
    return params ? text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? `{${name}}`)) : text;
  };
}

/** The `lang` attribute of a page in that language. */
export function htmlLang(language: string): Language {
  return languageOf(language);
}
