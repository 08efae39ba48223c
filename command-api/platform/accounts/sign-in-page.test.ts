import { deadLinkPage, signInPage } from './sign-in-page';

describe('the sign-in page', () => {
  it('given strings with markup, when the page is made, then each reads back as text and opens no tag or attribute', () => {
    const html = signInPage({
      action: 'https://platform.example/v1/auth/callback?x="><script>alert(1)</script>',
      token: `sit_"'><img src=x onerror=alert(1)>`,
      email: '<script>alert("x")</script>&@example.com',
      expiresAt: '2026-01-01T00:00:00.000Z<b>',
    });
    expect(html).not.toMatch(/<script|<img|<b>/);
    expect(html).toContain(
      'action="https://platform.example/v1/auth/callback?x=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"',
    );
    expect(html).toContain('value="sit_&quot;&#39;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    expect(html).toContain(
      '<strong>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;@example.com</strong>',
    );
    expect(html).toContain('until 2026-01-01T00:00:00.000Z&lt;b&gt;.');
  });

  it('given a detail, when the dead link page is made, then it says it escaped and has no form', () => {
    const html = deadLinkPage('used <up> & gone');
    expect(html).toContain('<p>used &lt;up&gt; &amp; gone</p>');
    expect(html).not.toContain('<form');
  });
});
