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

export interface ChatChannel {
  readonly name: 'log' | 'whatsapp';
  /** Resolves once the provider accepted the message; rejects with a ChannelError otherwise. */
  send(message: ChatMessage): Promise<SendResult>;
}

/** A chat message someone sent to the service's number. */
export interface InboundMessage {
  /** the provider's message id: a retried webhook call carries the same one */
  id: string;
  /** the sender's phone, digits with the country code */
  from: string;
  text: string;
}

/** A delivery status of a message the service sent. */
export interface InboundStatus {
  messageId: string;
  status: string;
  error: string | null;
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
