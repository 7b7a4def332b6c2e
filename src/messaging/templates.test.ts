import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REMINDER_TEMPLATES } from '../reminder-schedule/sequence.js';
import {
  findTemplate,
  renderBody,
  SIGN_IN_CODE_TEMPLATE,
  templateCatalogue,
  WEBHOOK_DISABLED_TEMPLATE,
} from './templates.js';

describe('the template catalogue', () => {
  it('is what docs/whatsapp-templates.json publishes', () => {
    const published = JSON.parse(readFileSync(new URL('../../docs/whatsapp-templates.json', import.meta.url), 'utf8'));
    expect(published).toEqual({ templates: templateCatalogue() });
  });

  it('has every template the service sends, in English and Hindi, each body naming each parameter once', () => {
    for (const name of [...REMINDER_TEMPLATES, SIGN_IN_CODE_TEMPLATE, WEBHOOK_DISABLED_TEMPLATE]) {
      for (const language of ['en', 'hi']) {
        const entry = findTemplate(name, language);
        expect(entry, `${name} ${language}`).toBeDefined();
        const used = [...(entry?.body.matchAll(/\{\{(\d+)\}\}/g) ?? [])].map((m) => Number(m[1])).sort();
        expect(used).toEqual(entry?.parameters.map((_, i) => i + 1));
      }
    }
    expect(templateCatalogue().map((t) => t.category)).toEqual([
      ...Array(8).fill('utility'),
      'authentication',
      'authentication',
      'utility',
      'utility',
    ]);
  });

  it("finds a language's base and fills the body in", () => {
    const entry = findTemplate('reminder_due_today', 'en-IN');
    expect(entry?.language).toBe('en');
    expect(
      renderBody(entry as NonNullable<typeof entry>, ['Ravi', 'Sharma', '₹10.00', '5 Mar 2026', 'https://x']),
    ).toBe('Hello Ravi, ₹10.00 to Sharma is due today (5 Mar 2026). Pay here: https://x');
    expect(findTemplate('reminder_due_today', 'pt-BR')).toBeUndefined();
  });
});
