/** The dashboard reads its words from the shared catalogue (src/i18n): one file per language. */
export { htmlLang, isMessageKey, type MessageKey, type Translate, translator } from '../i18n/index.js';
