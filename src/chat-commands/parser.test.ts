import { describe, expect, it } from 'vitest';
import { translator } from '../i18n/index.js';
import { type ChatCommand, type Problem, parseAmount, parseChatCommand } from './parser.js';

const english = translator('en');

const TODAY = '2026-07-01';

function add(name: string, amountPaise: number, dueDate = TODAY, note: string | null = null, exactName = false) {
  return { kind: 'add', name, exactName, amountPaise, dueDate, note };
}
function paid(name: string, amountPaise: number | null = null, method: string | null = null) {
  return { kind: 'paid', name, exactName: false, amountPaise, method };
}
const remind = (name: string) => ({ kind: 'remind', name, exactName: false });
const dues = { kind: 'dues' };
const overdue = { kind: 'overdue' };
const help = { kind: 'help', problem: null };
/** a help answer that explains what was wrong (its English text is checked to name the problem) */
const helpAbout = (fragment: string) => ({
  kind: 'help',
  problem: {
    asymmetricMatch: (problem: Problem) => english(problem.key, problem.params).includes(fragment),
    toString: () => `a problem saying "${fragment}"`,
  },
});

/** Real-world phrasings an owner sends, and what each must mean (today is 1 Jul 2026). */
const TABLE: [string, unknown][] = [
  // add: amounts
  ['add Ravi Kumar 1,500 15/12 cement', add('Ravi Kumar', 150_000, '2026-12-15', 'cement')],
  ['add Ravi 1500', add('Ravi', 150_000)],
  ['ADD RAVI 1500', add('RAVI', 150_000)],
  ['  add   Ravi    Kumar   1500  ', add('Ravi Kumar', 150_000)],
  ['Add Ravi ₹1500', add('Ravi', 150_000)],
  ['add Ravi ₹ 1,500', add('Ravi', 150_000)],
  ['add Ravi Rs 1500', add('Ravi', 150_000)],
  ['add Ravi rs.1500', add('Ravi', 150_000)],
  ['add Ravi Rs. 1,500.50', add('Ravi', 150_050)],
  ['add Ravi INR 2000', add('Ravi', 200_000)],
  ['add Ravi 1500.50', add('Ravi', 150_050)],
  ['add Ravi 1500.5', add('Ravi', 150_050)],
  ['add Ravi 15k', add('Ravi', 1_500_000)],
  ['add Ravi 15K', add('Ravi', 1_500_000)],
  ['add Ravi 1.5k', add('Ravi', 150_000)],
  ['add Ravi 1.5L', add('Ravi', 15_000_000)],
  ['add Ravi 2 lakh', add('Ravi', 20_000_000)],
  ['add Ravi 1,50,000', add('Ravi', 15_000_000)],
  ['add Ravi 1500/-', add('Ravi', 150_000)],
  ['add Ravi 1500 rupees', add('Ravi', 150_000)],
  ['add Ravi 1500rs', add('Ravi', 150_000)],
  ['add Ravi 5 hazar', add('Ravi', 500_000)],
  // add: dates
  ['add Ravi 1500 15-12', add('Ravi', 150_000, '2026-12-15')],
  ['add Ravi 1500 15.12', add('Ravi', 150_000, '2026-12-15')],
  ['add Ravi 1500 15 Dec', add('Ravi', 150_000, '2026-12-15')],
  ['add Ravi 1500 15th december', add('Ravi', 150_000, '2026-12-15')],
  ['add Ravi 1500 dec 15', add('Ravi', 150_000, '2026-12-15')],
  ['add Ravi 1500 Dec 15 2027', add('Ravi', 150_000, '2027-12-15')],
  ['add Ravi 1500 15/12/2026', add('Ravi', 150_000, '2026-12-15')],
  ['add Ravi 1500 15/12/27', add('Ravi', 150_000, '2027-12-15')],
  ['add Ravi 1500 2026-08-03', add('Ravi', 150_000, '2026-08-03')],
  ['add Ravi 1500 today', add('Ravi', 150_000, TODAY)],
  ['add Ravi 1500 aaj', add('Ravi', 150_000, TODAY)],
  ['add Ravi 1500 tomorrow', add('Ravi', 150_000, '2026-07-02')],
  ['add Ravi 1500 kal', add('Ravi', 150_000, '2026-07-02')],
  ['add Ravi 1500 parso', add('Ravi', 150_000, '2026-07-03')],
  ['add Ravi 1500 next week', add('Ravi', 150_000, '2026-07-08')],
  ['add Ravi 1500 by 20/7', add('Ravi', 150_000, '2026-07-20')],
  ['add Ravi 1500 on 5 Jan', add('Ravi', 150_000, '2027-01-05')],
  ['add Ravi 1500 20/6', add('Ravi', 150_000, '2026-06-20')],
  // add: names and notes
  ['add Ravi Kumar Sharma 2500 kal 10 bags cement', add('Ravi Kumar Sharma', 250_000, '2026-07-02', '10 bags cement')],
  ['add Ravi 1500 cement and sand', add('Ravi', 150_000, TODAY, 'cement and sand')],
  ['add due for Ravi 1500', add('Ravi', 150_000)],
  ['new Ravi 1500 kal', add('Ravi', 150_000, '2026-07-02')],
  ['add "Shop 2 Traders" 1500', add('Shop 2 Traders', 150_000, TODAY, null, true)],
  ['add “Ravi” 700 tomorrow', add('Ravi', 70_000, '2026-07-02', null, true)],
  ['Add: Ravi 1500', add('Ravi', 150_000)],
  ['udhar Ravi 1500', add('Ravi', 150_000)],
  ['Ravi 1500 likho', add('Ravi', 150_000)],
  ['add Mrs Sharma 900', add('Mrs Sharma', 90_000)],
  ['add राम 500', add('राम', 50_000)],
  ['जोड़ो Ravi 500', add('Ravi', 50_000)],
  ['उधार सीता 2k कल', add('सीता', 200_000, '2026-07-02')],
  // add: errors
  ['add Ravi', helpAbout('amount')],
  ['add', helpAbout('name')],
  ['add 1500', helpAbout('name')],
  ['add Ravi 0', helpAbout('"0" is not an amount')],
  ['add Ravi -500', helpAbout('"-500" is not an amount')],
  ['add Ravi 1.555', helpAbout('"1.555"')],
  ['add Ravi 15,00', helpAbout('"15,00"')],
  ['add Ravi ₹abc', helpAbout('"₹abc"')],
  ['add Ravi 99999999999999', helpAbout('not an amount')],
  ['add Ravi 1500 31/02', helpAbout('not a date')],
  // paid
  ['paid Ravi', paid('Ravi')],
  ['PAID ravi kumar', paid('ravi kumar')],
  ['paid Ravi Kumar 500', paid('Ravi Kumar', 50_000)],
  ['paid Ravi ₹1,500', paid('Ravi', 150_000)],
  ['paid Ravi 1.5k cash', paid('Ravi', 150_000, 'cash')],
  ['paid Ravi 500 upi', paid('Ravi', 50_000, 'upi')],
  ['paid Ravi full', paid('Ravi')],
  ['paid Ravi Kumar by bank transfer', paid('Ravi Kumar', null, 'bank_transfer')],
  ['received from Ravi 500', paid('Ravi', 50_000)],
  ['got 500 from Ravi', paid('Ravi', 50_000)],
  ['got 500', helpAbout('name')],
  ['Ravi se 500 mila', paid('Ravi', 50_000)],
  ['Ravi ka payment mila', paid('Ravi ka payment')],
  ['jama Ravi 2000', paid('Ravi', 200_000)],
  ['Ravi se 500 मिला', paid('Ravi', 50_000)],
  ['paid Ravi 500 thanks', paid('Ravi', 50_000)],
  ['paid', helpAbout('name')],
  ['paid Ravi 0', helpAbout('"0"')],
  ['paid Ravi 12.345', helpAbout('"12.345"')],
  // dues / overdue
  ['dues', dues],
  ['DUES', dues],
  [' Dues? ', dues],
  ['due', dues],
  ['balance', dues],
  ['outstanding', dues],
  ['baki kitna hai', dues],
  ['hisaab', dues],
  ['बाकी', dues],
  ['overdue', overdue],
  ['Overdue list', overdue],
  ['over due', overdue],
  ['late', overdue],
  // remind
  ['remind Ravi', remind('Ravi')],
  ['Remind Ravi Kumar', remind('Ravi Kumar')],
  ['reminder to Ravi', remind('Ravi')],
  ['Ravi ko yaad dilao', remind('Ravi')],
  ['yaad dilao Ravi', remind('Ravi')],
  ['remind', helpAbout('name')],
  // help and unknown
  ['help', help],
  ['HELP', help],
  ['?', help],
  ['hi', help],
  ['madad', help],
  ['what is my balance please', help],
  ['', help],
  ['🙏', help],
  ['constructor', help],
  [`add Ravi 500 ${'x'.repeat(1000)}`, helpAbout('at most 1000 characters')],
];

describe('parseChatCommand: real-world phrasings', () => {
  it('has at least 60 phrasings', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(60);
  });

  it.each(TABLE)('%j', (text, expected) => {
    expect(parseChatCommand(text, TODAY)).toEqual(expected as ChatCommand);
  });

  it('takes a day and month without a year as the next such date, or one up to 90 days ago', () => {
    expect(parseChatCommand('add Ravi 100 15/12', '2027-01-05')).toMatchObject({ dueDate: '2026-12-15' });
    expect(parseChatCommand('add Ravi 100 5 Jan', '2026-12-20')).toMatchObject({ dueDate: '2027-01-05' });
    expect(parseChatCommand('add Ravi 100 1/4', '2026-07-01')).toMatchObject({ dueDate: '2027-04-01' });
    expect(parseChatCommand('add Ravi 100 3/4', '2026-07-01')).toMatchObject({ dueDate: '2026-04-03' });
    expect(parseChatCommand('add Ravi 100 kal', '2026-12-31')).toMatchObject({ dueDate: '2027-01-01' });
  });
});

describe('parseAmount', () => {
  it.each([
    ['1500', 150_000],
    ['1,500', 150_000],
    ['12,34,567.89', 123_456_789],
    ['₹0.01', 1],
    ['1.23456k', 123_456],
    ['1cr', 1_000_000_000],
  ])('%s is %i paise', (token, paise) => {
    expect(parseAmount(token)).toBe(paise);
  });

  it.each(['0', '0.001', '1.234567k', '1,5', '1,5000', '-1', '₹'])('%s is a bad amount', (token) => {
    expect(parseAmount(token)).toBe('bad');
  });

  it.each(['Ravi', '15/12', 'cement', '2026-08-03', '1..5'])('%s is not an amount', (token) => {
    expect(parseAmount(token)).toBeNull();
  });
});

describe('the examples the help text gives', () => {
  for (const language of ['en', 'hi'] as const) {
    it(`parse as the command they show (${language})`, () => {
      const t = translator(language);
      expect(parseChatCommand(t('chat.example.add'), TODAY)).toMatchObject({ kind: 'add', name: 'Ravi Kumar' });
      expect(parseChatCommand(t('chat.example.paid'), TODAY)).toMatchObject({ kind: 'paid', amountPaise: 50_000 });
      expect(parseChatCommand(t('chat.example.remind'), TODAY)).toMatchObject({ kind: 'remind', name: 'Ravi Kumar' });
      expect(parseChatCommand(t('chat.example.statement'), TODAY)).toMatchObject({ kind: 'statement' });
    });
  }
});
