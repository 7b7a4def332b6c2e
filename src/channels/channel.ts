/**
 * The chat channel port (ARCHITECTURE: ports with a real and a test implementation). Reminders and
 * the inbound chat replies go through it; `log` records, `whatsapp` sends through the Cloud API.
 */

/** An approved template message: the only kind WhatsApp lets a business start a conversation with. */
export interface TemplateMessage {
  kind: 'template';
  /** normalised phone digits with the country code */
  to: string;
  template: string;
  /** the business language, e.g. en or pt-BR */
  language: string;
  /** the template's body parameters {{1}}, {{2}}, ... in order */
  parameters: string[];
  /**
   * An authentication template's one-time code for its copy-code button (Meta creates that
   * button as a URL button whose one parameter is the code).
   */
  copyCode?: string;
}

/** Free text, only used to answer a message the person just sent (inside WhatsApp's 24-hour window). */
export interface TextMessage {
  kind: 'text';
  to: string;
  text: string;
}

export type ChatMessage = TemplateMessage | TextMessage;

export interface SendResult {
  /** the provider's id of the message, which its delivery statuses refer to */
  messageId: string;
}

/** Why a message is sent: kept with it (src/messaging/), and the only purposes there are. */
export type MessagePurpose = 'reminder' | 'reply' | 'sign_in_code' | 'notice';

/**
 * Whom a message concerns. The adapters ignore it; the messenger (src/messaging/messenger.ts), which
 * wraps the adapter, records the message with it so that statuses and replies find their business.
 */
export interface MessageContext {
  purpose: MessagePurpose;
  businessId: string | null;
  contactId?: string | null;
  reminderId?: string | null;
  /** the sending pace was already taken for it (the reminder scheduler takes it per batch) */
  paced?: boolean;
}

export interface ChatChannel {
  readonly name: 'log' | 'whatsapp';
  /** Resolves once the provider accepted the message; rejects with a ChannelError otherwise. */
  send(message: ChatMessage, context?: MessageContext): Promise<SendResult>;
}

/** A chat message someone sent to the service's number. */
export interface InboundMessage {
  /** the provider's message id: a retried webhook call carries the same one */
  id: string;
  /** the sender's phone, digits with the country code */
  from: string;
  text: string;
  /** the id of the message this one answers (WhatsApp's context.id, set when the buyer replies to it) */
  contextId?: string;
}

/** A delivery status of a message the service sent. */
export interface InboundStatus {
  messageId: string;
  status: string;
  error: string | null;
  /** the Cloud API's error code of a failed message (e.g. 131026, 131047, 131050) */
  errorCode: number | null;
  /** pricing.category: utility, marketing, authentication, service */
  category: string | null;
  /** pricing.billable; null when the status carries no pricing */
  billable: boolean | null;
}

/**
 * The channel did not take the message. `message` is short and safe to show to an API caller;
 * `detail` (the provider's own words) is for the logs.
 */
export class ChannelError extends Error {
  readonly detail: string | undefined;
  constructor(message: string, detail?: string) {
    super(message);
    this.name = 'ChannelError';
    this.detail = detail;
  }
}
