import { ChannelError } from '../channels/channel.js';
import type { NewTemplate, TemplatesApi } from '../channels/whatsapp-templates.js';
import { type TemplateEntry, templateCatalogue } from './templates.js';

export interface SyncOutcome {
  name: string;
  language: string;
  outcome: 'exists' | 'created' | 'would_create' | 'failed';
  /** Meta's status of a template that exists or was just created (APPROVED, PENDING, REJECTED...) */
  status: string | null;
  /** why a creation failed */
  error: string | null;
}

/**
 * `templates sync`: every template and language of the catalogue (docs/whatsapp-templates.json)
 * that the WhatsApp Business Account does not hold is created; those it holds are left as they are,
 * whatever their status. One failed creation does not stop the others.
 */
export async function syncTemplates(api: TemplatesApi, options: { dryRun: boolean }): Promise<SyncOutcome[]> {
  const remote = await api.list();
  const held = new Map(remote.map((t) => [`${t.name}\u0000${t.language}`, t.status]));
  const outcomes: SyncOutcome[] = [];
  for (const entry of templateCatalogue()) {
    const base = { name: entry.name, language: entry.language };
    const status = held.get(`${entry.name}\u0000${entry.language}`);
    if (status !== undefined) {
      outcomes.push({ ...base, outcome: 'exists', status, error: null });
      continue;
    }
    if (options.dryRun) {
      outcomes.push({ ...base, outcome: 'would_create', status: null, error: null });
      continue;
    }
    try {
      const created = await api.create(metaTemplate(entry));
      outcomes.push({ ...base, outcome: 'created', status: created.status || null, error: null });
    } catch (error) {
      if (!(error instanceof ChannelError)) throw error;
      outcomes.push({ ...base, outcome: 'failed', status: null, error: error.message });
    }
  }
  return outcomes;
}

/**
 * The catalogue entry as Meta's create call wants it: a utility template's body with an example
 * for each parameter and its footer; an authentication template as Meta builds those (its preset
 * body with the security recommendation, the code's expiry, a copy-code button).
 */
export function metaTemplate(entry: TemplateEntry): NewTemplate {
  if (entry.category === 'authentication') {
    return {
      name: entry.name,
      language: entry.language,
      category: 'AUTHENTICATION',
      components: [
        { type: 'BODY', add_security_recommendation: true },
        { type: 'FOOTER', code_expiration_minutes: 10 },
        { type: 'BUTTONS', buttons: [{ type: 'OTP', otp_type: 'COPY_CODE' }] },
      ],
    };
  }
  return {
    name: entry.name,
    language: entry.language,
    category: 'UTILITY',
    components: [
      { type: 'BODY', text: entry.body, example: { body_text: [entry.parameters.map((p) => p.example)] } },
      ...(entry.footer === null ? [] : [{ type: 'FOOTER', text: entry.footer }]),
    ],
  };
}
