import { describe, expect, it } from 'vitest';
import { parseCommand } from '../reminders/inbound.js';
import { parseWhatsAppPayload } from './whatsapp-payload.js';

describe('parseWhatsAppPayload', () => {
  it('reads text messages, quick-reply buttons and statuses from every entry and change', () => {
    const payload = {
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            {
              value: {
                messages: [
                  { from: '919876543210', id: 'wamid.1', type: 'text', text: { body: 'STOP' } },
                  { from: '+91 98765 43211', id: 'wamid.2', type: 'button', button: { text: 'Stop', payload: 'x' } },
                  { from: '919876543212', id: 'wamid.3', type: 'image', image: { id: 'm' } },
                  {
                    from: '919876543213',
                    id: 'wamid.4',
                    type: 'text',
                    text: { body: 'kal dunga' },
                    context: { from: '15550001111', id: 'wamid.ours' },
                  },
                ],
              },
            },
          ],
        },
        {
          changes: [
            {
              value: {
                statuses: [
                  { id: 'wamid.9', status: 'read' },
                  { id: 'wamid.8', status: 'failed', errors: [{ code: 131026, title: 'Message undeliverable' }] },
                  {
                    id: 'wamid.7',
                    status: 'delivered',
                    pricing: { billable: true, pricing_model: 'PMP', category: 'utility' },
                  },
                  {
                    id: 'wamid.6',
                    status: 'sent',
                    pricing: { category: 'Bad Category!' },
                    errors: [{ code: '131026' }],
                  },
                  { status: 'sent' },
                ],
              },
            },
          ],
        },
      ],
    };
    expect(parseWhatsAppPayload(payload)).toEqual({
      messages: [
        { id: 'wamid.1', from: '919876543210', text: 'STOP' },
        { id: 'wamid.2', from: '919876543211', text: 'Stop' },
        { id: 'wamid.4', from: '919876543213', text: 'kal dunga', contextId: 'wamid.ours' },
      ],
      statuses: [
        { messageId: 'wamid.9', status: 'read', error: null, errorCode: null, category: null, billable: null },
        {
          messageId: 'wamid.8',
          status: 'failed',
          error: 'Message undeliverable',
          errorCode: 131026,
          category: null,
          billable: null,
        },
        {
          messageId: 'wamid.7',
          status: 'delivered',
          error: null,
          errorCode: null,
          category: 'utility',
          billable: true,
        },
        { messageId: 'wamid.6', status: 'sent', error: null, errorCode: null, category: null, billable: null },
      ],
    });
  });

  it('ignores shapes it does not know', () => {
    for (const payload of [null, 'x', 1, [], {}, { entry: {} }, { entry: [null, { changes: 'x' }] }]) {
      expect(parseWhatsAppPayload(payload)).toEqual({ messages: [], statuses: [] });
    }
  });
});

describe('parseCommand', () => {
  it.each([
    ['STOP', 'stop'],
    [' stop. ', 'stop'],
    ['Start', 'start'],
    ['api key', 'api_key'],
    ['API  KEY!', 'api_key'],
    ['api-key', 'api_key'],
    ['please stop', null],
    ['APIKEY', null],
    ['', null],
  ])('%j -> %s', (text, command) => {
    expect(parseCommand(text)).toBe(command);
  });
});
