import { describe, expect, it } from 'vitest';
import { chooseTemplate, formatAmount, formatDueDate, reminderMessage } from './templates.js';

describe('chooseTemplate', () => {
  it.each([
    ['2026-03-11', 'reminder_upcoming'],
    ['2026-12-31', 'reminder_upcoming'],
    ['2026-03-10', 'reminder_due_today'],
    ['2026-03-09', 'reminder_overdue_week'],
    ['2026-02-09', 'reminder_overdue_week'], // 29 days overdue
    ['2026-02-08', 'reminder_final'], // 30 days overdue
    ['2020-01-01', 'reminder_final'],
  ])('due %s, today 2026-03-10 -> %s', (due, template) => {
    expect(chooseTemplate(due, '2026-03-10')).toBe(template);
  });
});

describe('formatting', () => {
  it('writes amounts the local way with the currency minor unit', () => {
    expect(formatAmount(12_345_000, 'INR', 'en-IN')).toBe('₹1,23,450.00');
    expect(formatAmount(5, 'INR', 'en-IN')).toBe('₹0.05');
    expect(formatAmount(123_456, 'USD', 'en-US')).toBe('$1,234.56');
    expect(formatAmount(1500, 'JPY', 'en-US')).toBe('¥1,500');
  });

  it('writes due dates the local way', () => {
    expect(formatDueDate('2026-03-05', 'en-IN')).toBe('5 Mar 2026');
    expect(formatDueDate('2026-03-05', 'en-US')).toBe('Mar 5, 2026');
  });

  it('builds the five body parameters in order', () => {
    const message = reminderMessage(
      { name: 'Sharma Textiles', language: 'en', country: 'IN' },
      {
        contact_name: 'Ravi',
        contact_phone: '919876543210',
        amount_paise: 100_000,
        currency: 'INR',
        due_date: '2026-03-05',
        pay_token: 'tok',
      },
      'reminder_final',
      'https://pay.example.test',
    );
    expect(message).toEqual({
      kind: 'template',
      to: '919876543210',
      template: 'reminder_final',
      language: 'en',
      parameters: ['Ravi', 'Sharma Textiles', '₹1,000.00', '5 Mar 2026', 'https://pay.example.test/pay/tok'],
    });
  });

  it('asks for the balance of a part-paid due', () => {
    const message = reminderMessage(
      { name: 'Sharma Textiles', language: 'en', country: 'IN' },
      {
        contact_name: 'Ravi',
        contact_phone: '919876543210',
        amount_paise: 100_000,
        amount_paid_paise: 40_000,
        currency: 'INR',
        due_date: '2026-03-05',
        pay_token: 'tok',
      },
      'reminder_final',
      'https://pay.example.test',
    );
    expect(message.parameters[2]).toBe('₹600.00');
  });

  it('uses a language that names its region as the locale', () => {
    const message = reminderMessage(
      { name: 'B', language: 'pt-BR', country: 'IN' },
      {
        contact_name: 'C',
        contact_phone: '1',
        amount_paise: 100,
        currency: 'BRL',
        due_date: '2026-03-05',
        pay_token: 't',
      },
      'reminder_upcoming',
      'https://x.test',
    );
    expect(message.parameters[2]).toBe(
      new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(1),
    );
    expect(message.language).toBe('pt-BR');
  });
});
