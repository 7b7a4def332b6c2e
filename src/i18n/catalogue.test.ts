import { describe, expect, it } from 'vitest';
import { type Catalogue, catalogues, isMessageKey, translator } from './index.js';

/**
 * The problems of one catalogue against the English one: a key missing, empty or extra, or a
 * `{param}` English does not fill (a translation may leave one out: `refusal.*` shows English's
 * `{message}` as it is, and says it in its own words elsewhere).
 */
function problems(catalogue: Record<string, string>, reference: Catalogue): string[] {
  const found: string[] = [];
  const params = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const [key, english] of Object.entries(reference)) {
    const text = catalogue[key];
    if (text === undefined) found.push(`${key}: missing`);
    else if (text.trim() === '') found.push(`${key}: empty`);
    else if (params(text).some((p) => !params(english).includes(p))) found.push(`${key}: params ${params(text)}`);
  }
  for (const key of Object.keys(catalogue)) if (!Object.hasOwn(reference, key)) found.push(`${key}: not in English`);
  return found;
}

describe('catalogues', () => {
  it.each(Object.keys(catalogues))('%s has every key of English, none empty, with the same {params}', (language) => {
    expect(problems(catalogues[language as keyof typeof catalogues], catalogues.en)).toEqual([]);
  });

  it('the check finds a missing key, an empty one, an extra one and a lost parameter', () => {
    const { 'nav.home': _, ...rest } = catalogues.hi;
    const broken = { ...rest, 'nav.dues': ' ', 'dues.page': 'पृष्ठ {page} / {pagez}', 'nav.extra': 'x' };
    expect(problems(broken, catalogues.en)).toEqual([
      'nav.home: missing',
      'nav.dues: empty',
      'dues.page: params page,pagez',
      'nav.extra: not in English',
    ]);
  });

  it('Hindi keeps to the glossary at the top of hi.ts: no office words a shopkeeper does not speak', () => {
    const office = ['अतिदेय', 'देय तिथि', 'संपर्क', 'व्यवसाय', 'प्राप्त', 'वैकल्पिक', 'भुगतान दर्ज'];
    const found = Object.entries(catalogues.hi).filter(([, text]) => office.some((word) => text.includes(word)));
    expect(found).toEqual([]);
  });

  it('translator fills {params}, reads Hindi for hi and hi-IN, English otherwise', () => {
    expect(translator('hi-IN')('dues.page', { page: 2, pages: 5 })).toBe('पेज 2 / 5');
    expect(translator('en')('dues.page', { page: 2, pages: 5 })).toBe('Page 2 of 5');
    expect(translator('ta')('nav.home')).toBe('Home');
    expect(isMessageKey('nav.home')).toBe(true);
    expect(isMessageKey('toString')).toBe(false);
  });
});
