/**
 * Every template the service sends, with its bodies in English and Hindi: the catalogue
 * `docs/whatsapp-templates.json` publishes (a test keeps the two equal), `templates sync` creates at
 * Meta, and the 24-hour window's free text is written from (window.ts).
 */
export interface TemplateParameter {
  name: string;
  example: string;
}

export interface TemplateEntry {
  name: string;
  category: 'utility' | 'authentication';
  language: 'en' | 'hi';
  /** {{1}}, {{2}}, ... stand for the parameters, in order */
  body: string;
  footer: string | null;
  parameters: TemplateParameter[];
}

const REMINDER_PARAMETERS: TemplateParameter[] = [
  { name: 'contact name', example: 'Ravi Kumar' },
  { name: 'business name', example: 'Sharma Textiles' },
  { name: 'amount still owed, with currency', example: '₹1,23,450.00' },
  { name: 'due date', example: '5 Mar 2026' },
  { name: 'pay page link', example: 'https://pay.example.com/pay/Xy3abc' },
];

const STOP_FOOTER = { en: 'Reply STOP to stop reminders', hi: 'रिमाइंडर बंद करने के लिए STOP लिखें' } as const;

const REMINDER_BODIES: Record<string, { en: string; hi: string }> = {
  reminder_upcoming: {
    en: 'Hello {{1}}, a friendly reminder from {{2}}: {{3}} is due on {{4}}. You can pay here: {{5}}',
    hi: 'नमस्ते {{1}}, {{2}} की ओर से याद दिला रहे हैं: {{3}} का भुगतान {{4}} को देय है। यहाँ भुगतान करें: {{5}}',
  },
  reminder_due_today: {
    en: 'Hello {{1}}, {{3}} to {{2}} is due today ({{4}}). Pay here: {{5}}',
    hi: 'नमस्ते {{1}}, {{2}} को {{3}} का भुगतान आज ({{4}}) देय है। यहाँ भुगतान करें: {{5}}',
  },
  reminder_overdue_week: {
    en: 'Hello {{1}}, {{3}} to {{2}} was due on {{4}} and is still unpaid. Please pay here: {{5}}',
    hi: 'नमस्ते {{1}}, {{2}} को {{3}} का भुगतान {{4}} को देय था और अभी बाकी है। कृपया यहाँ भुगतान करें: {{5}}',
  },
  reminder_final: {
    en: 'Hello {{1}}, final reminder from {{2}}: {{3}}, due on {{4}}, is more than 30 days overdue. Please pay now: {{5}}',
    hi: 'नमस्ते {{1}}, {{2}} की ओर से अंतिम याद: {{3}}, जो {{4}} को देय था, 30 दिन से ज़्यादा बकाया है। कृपया अभी भुगतान करें: {{5}}',
  },
};

/** Meta's preset authentication body (with the security recommendation); the code has a copy button. */
const SIGN_IN_BODIES = {
  en: '{{1}} is your verification code. For your security, do not share this code.',
  hi: '{{1}} आपका वेरिफ़िकेशन कोड है। अपनी सुरक्षा के लिए, यह कोड किसी के साथ शेयर न करें।',
} as const;

export const SIGN_IN_CODE_TEMPLATE = 'dashboard_sign_in_code';

/** Sent to the business when a webhook endpoint is turned off after 3 days of failed deliveries. */
export const WEBHOOK_DISABLED_TEMPLATE = 'webhook_endpoint_disabled';

const WEBHOOK_DISABLED_BODIES = {
  en: 'Hello {{1}}, your webhook endpoint {{2}} has failed every delivery for 3 days and has been turned off. Once it is fixed, turn it back on from the dashboard (Developers) or the API.',
  hi: 'नमस्ते {{1}}, आपका वेबहुक एंडपॉइंट {{2}} 3 दिन से हर डिलीवरी में विफल रहा, इसलिए इसे बंद कर दिया गया है। ठीक होने पर इसे डैशबोर्ड (डेवलपर) या API से फिर चालू करें।',
} as const;

/** The catalogue, one entry per template and language. */
export function templateCatalogue(): TemplateEntry[] {
  const entries: TemplateEntry[] = [];
  for (const [name, bodies] of Object.entries(REMINDER_BODIES)) {
    for (const language of ['en', 'hi'] as const) {
      entries.push({
        name,
        category: 'utility',
        language,
        body: bodies[language],
        footer: STOP_FOOTER[language],
        parameters: REMINDER_PARAMETERS,
      });
    }
  }
  for (const language of ['en', 'hi'] as const) {
    entries.push({
      name: SIGN_IN_CODE_TEMPLATE,
      category: 'authentication',
      language,
      body: SIGN_IN_BODIES[language],
      footer: language === 'en' ? 'This code expires in 10 minutes.' : 'यह कोड 10 मिनट में समाप्त हो जाएगा।',
      parameters: [{ name: 'one-time code', example: '123456' }],
    });
  }
  for (const language of ['en', 'hi'] as const) {
    entries.push({
      name: WEBHOOK_DISABLED_TEMPLATE,
      category: 'utility',
      language,
      body: WEBHOOK_DISABLED_BODIES[language],
      footer: null,
      parameters: [
        { name: 'business name', example: 'Sharma Textiles' },
        { name: 'endpoint URL', example: 'https://erp.example.com/hooks/receivables' },
      ],
    });
  }
  return entries;
}

/** The catalogue's entry for a template in a language (its base: pt-BR looks for pt), if any. */
export function findTemplate(name: string, language: string): TemplateEntry | undefined {
  const base = language.split(/[-_]/)[0]?.toLowerCase();
  return templateCatalogue().find((t) => t.name === name && t.language === base);
}

/** The body with its parameters filled in. */
export function renderBody(entry: TemplateEntry, parameters: readonly string[]): string {
  return entry.body.replace(/\{\{(\d+)\}\}/g, (whole, n: string) => parameters[Number(n) - 1] ?? whole);
}
