import { describe, expect, it } from 'vitest';
import { upiLink } from './format.js';
import { escapeHtml, html, trusted } from './html.js';

describe('upiLink', () => {
  it('builds the NPCI deep link with percent-encoded values', () => {
    expect(
      upiLink({ vpa: 'shop.one@okhdfc', payeeName: 'Sharma & Sons', paise: 123_450, note: 'Invoice INV/7#1' }),
    ).toBe('upi://pay?pa=shop.one@okhdfc&pn=Sharma%20%26%20Sons&am=1234.50&cu=INR&tn=Invoice%20INV%2F7%231');
  });

  it('encodes non-ASCII names as UTF-8 and cuts long notes to 50 characters', () => {
    const link = upiLink({ vpa: 'a@b', payeeName: 'शर्मा', paise: 100, note: 'x'.repeat(80) });
    expect(link).toBe(`upi://pay?pa=a@b&pn=${encodeURIComponent('शर्मा')}&am=1.00&cu=INR&tn=${'x'.repeat(50)}`);
  });
});

describe('html', () => {
  it('escapes the five characters that matter in content and attributes', () => {
    expect(escapeHtml(`<a href="x">Tom & Jerry's</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;',
    );
  });

  it('escapes interpolations unless they are markup', () => {
    const name = '<script>alert(1)</script>';
    expect(html`<p title="${name}">${name}${trusted('<br>')}${[html`<i>${'&'}</i>`, false, null]}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(1)&lt;/script&gt;">&lt;script&gt;alert(1)&lt;/script&gt;<br><i>&amp;</i></p>',
    );
  });
});
