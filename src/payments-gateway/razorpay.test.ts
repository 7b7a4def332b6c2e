import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { paymentMethodOf } from './port.js';
import { paymentOfWebhook, validRazorpaySignature } from './razorpay.js';

const SECRET = 'whsec-test';
const sign = (body: string, secret = SECRET) => createHmac('sha256', secret).update(body).digest('hex');

describe('validRazorpaySignature', () => {
  const raw = Buffer.from('{"event":"payment_link.paid"}');

  it('accepts the hex HMAC-SHA256 of the exact bytes, in either case', () => {
    expect(validRazorpaySignature(raw, sign(raw.toString()), SECRET)).toBe(true);
    expect(validRazorpaySignature(raw, sign(raw.toString()).toUpperCase(), SECRET)).toBe(true);
  });

  it('refuses a missing, short, other-secret or other-body signature', () => {
    expect(validRazorpaySignature(raw, undefined, SECRET)).toBe(false);
    expect(validRazorpaySignature(raw, '', SECRET)).toBe(false);
    expect(validRazorpaySignature(raw, sign(raw.toString()).slice(0, 63), SECRET)).toBe(false);
    expect(validRazorpaySignature(raw, sign(raw.toString(), 'other'), SECRET)).toBe(false);
    expect(validRazorpaySignature(Buffer.from(`${raw} `), sign(raw.toString()), SECRET)).toBe(false);
  });
});

describe('paymentOfWebhook', () => {
  const event = (payment: Record<string, unknown>, link: Record<string, unknown> = {}) => ({
    event: 'payment_link.paid',
    payload: {
      payment_link: { entity: { id: 'plink_1', reference_id: 'ref-1', amount: 500, ...link } },
      payment: { entity: { id: 'pay_1', amount: 500, currency: 'INR', method: 'card', ...payment } },
    },
  });

  it('reads the reference, link and its amount, payment id, amount, currency and method', () => {
    expect(paymentOfWebhook(event({}))).toEqual({
      paymentId: 'pay_1',
      referenceId: 'ref-1',
      linkId: 'plink_1',
      linkAmountPaise: 500,
      amountPaise: 500,
      currency: 'INR',
      method: 'card',
    });
    expect(paymentOfWebhook(event({ currency: 7 }, { amount: '500' }))).toMatchObject({
      currency: null,
      linkAmountPaise: null,
    });
    expect(paymentOfWebhook(event({ method: undefined }, { reference_id: null }))).toMatchObject({
      referenceId: null,
      method: null,
    });
  });

  it('ignores other events and payments without a usable id or amount', () => {
    expect(paymentOfWebhook({ ...event({}), event: 'payment.captured' })).toBeNull();
    expect(paymentOfWebhook(null)).toBeNull();
    expect(paymentOfWebhook('text')).toBeNull();
    for (const bad of [{ id: '' }, { id: 7 }, { amount: 0 }, { amount: -5 }, { amount: 1.5 }, { amount: '500' }]) {
      expect(paymentOfWebhook(event(bad))).toBeNull();
    }
  });
});

describe('paymentMethodOf', () => {
  it('maps upi and card as they are, netbanking to bank_transfer, anything else to other', () => {
    expect(['upi', 'card', 'netbanking', 'wallet', 'emi', null].map(paymentMethodOf)).toEqual([
      'upi',
      'card',
      'bank_transfer',
      'other',
      'other',
      'other',
    ]);
  });
});

describe('PAYMENTS_GATEWAY configuration', () => {
  const full = {
    PAYMENTS_GATEWAY: 'razorpay',
    RAZORPAY_KEY_ID: 'rzp_live_id',
    RAZORPAY_KEY_SECRET: 'key-secret-value',
    RAZORPAY_WEBHOOK_SECRET: 'webhook-secret-value',
  };

  it('defaults to no gateway and to the Razorpay API base', () => {
    const config = loadConfig({});
    expect(config.paymentsGateway).toBe('none');
    expect(config.razorpay.apiBase).toBe('https://api.razorpay.com');
    expect(loadConfig({ ...full, RAZORPAY_API_BASE: 'http://127.0.0.1:9/' }).razorpay.apiBase).toBe(
      'http://127.0.0.1:9',
    );
  });

  it('names each missing variable, never a secret value', () => {
    for (const name of ['RAZORPAY_KEY_ID', 'RAZORPAY_KEY_SECRET', 'RAZORPAY_WEBHOOK_SECRET']) {
      const env = { ...full, [name]: '' };
      expect(() => loadConfig(env)).toThrow(ConfigError);
      try {
        loadConfig(env);
      } catch (error) {
        expect((error as Error).message).toContain(name);
        expect((error as Error).message).not.toMatch(/secret-value|rzp_live_id/);
      }
    }
    expect(() => loadConfig({ ...full, PAYMENTS_GATEWAY: 'stripe' })).toThrow(/PAYMENTS_GATEWAY/);
    expect(() => loadConfig({ ...full, RAZORPAY_API_BASE: 'ftp://x' })).toThrow(/RAZORPAY_API_BASE/);
  });
});
