import type { CliCommand } from './types.js';

export interface CommandEntry {
  /** its lines in `--help` */
  usage: string;
  /** takes words after its name (the text of `chat`); others refuse them */
  takesText?: boolean;
  /** loaded only when this command runs: start-up pays for one command's modules, not all */
  load: () => Promise<{ default: CliCommand }>;
}

/**
 * The admin CLI's commands. Adding one: a file in this folder (`export default { run }`, see
 * types.ts) and one line here; a new option also goes in args.ts OPTIONS.
 */
export const COMMANDS: Record<string, CommandEntry> = {
  'business create': {
    usage: `business create --name N --phone P [--plan business] [--currency INR] [--country IN]
                  [--language en] [--timezone Asia/Kolkata]`,
    load: () => import('./business-create.js'),
  },
  'business set': {
    usage: `business set --business ID [--plan P] [--plan-expires-at ISO] [--reminders-paused true|false] [--reminder-steps "-3,0,7,30"]
               [--upi-id VPA]`,
    load: () => import('./business-set.js'),
  },
  'key issue': { usage: 'key issue --business ID', load: () => import('./key-issue.js') },
  'key list': { usage: 'key list --business ID', load: () => import('./key-list.js') },
  'key revoke': { usage: 'key revoke --key KEY | --id KEY_ID', load: () => import('./key-revoke.js') },
  'secrets reseal': { usage: 'secrets reseal', load: () => import('./secrets-reseal.js') },
  import: { usage: 'import --business ID --file F [--dry-run]', load: () => import('./import.js') },
  'bank import': {
    usage: 'bank import --business ID --file F   a bank statement (CSV): credits matched to dues, the rest to review',
    load: () => import('./bank-import.js'),
  },
  export: {
    usage: 'export --business ID [--status pending|overdue|outstanding|paid] > F',
    load: () => import('./export.js'),
  },
  'business export': {
    usage: 'business export --business ID --out DIR   everything the business holds, as JSON lines',
    load: () => import('./business-export.js'),
  },
  'contact erase': {
    usage: "contact erase --business ID --contact ID   remove a buyer's personal data (money records stay)",
    load: () => import('./contact-erase.js'),
  },
  'contact merge': {
    usage: 'contact merge --business ID --keep ID --merge ID   merge two buyers that are one person into the kept one',
    load: () => import('./contact-merge.js'),
  },
  'templates sync': {
    usage:
      'templates sync [--dry-run]        create the WhatsApp templates the account lacks (docs/whatsapp-templates.json)',
    load: () => import('./templates-sync.js'),
  },
  verify: {
    usage: 'verify [--business ID]            integrity, and every kept figure recomputed from the rows',
    load: () => import('./verify.js'),
  },
  backup: {
    usage: 'backup --out FILE                 SQLite: a consistent copy while the server runs',
    load: () => import('./backup.js'),
  },
  restore: {
    usage: 'restore --from FILE               SQLite: put a backup in place (server stopped)',
    load: () => import('./restore.js'),
  },
  'login-link': {
    usage: 'login-link --business ID [--user USER_ID]  one-time dashboard sign-in link (15 minutes, one use)',
    load: () => import('./login-link.js'),
  },
  'user add': {
    usage: 'user add --business ID --name N --phone P --role accountant|collector|viewer   a staff user',
    load: () => import('./user-add.js'),
  },
  'user remove': {
    usage: 'user remove --business ID --user USER_ID   removes a staff user and ends their sessions',
    load: () => import('./user-remove.js'),
  },
  chat: {
    usage: 'chat --business ID "add Ravi 500"  the text as the owner\'s chat message; prints the reply',
    takesText: true,
    load: () => import('./chat.js'),
  },
  messages: {
    usage: 'messages --business ID [--limit 20]  the last messages CHAT_CHANNEL=log recorded for the business',
    load: () => import('./messages.js'),
  },
  demo: {
    usage: 'demo                              a demo business full of data, its API key and a sign-in link',
    load: () => import('./demo.js'),
  },
};
