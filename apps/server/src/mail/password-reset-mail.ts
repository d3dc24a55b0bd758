import { limits } from '@releases/contract';
import type { Mail } from './mailer.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The password reset mail (SPEC §3.7): the link, how long it works, and that it can be ignored. The link's
 * token is in the fragment (`#token=`), which browsers never send to a server nor put in a `Referer`.
 */
export function passwordResetMail(to: string, link: string): Mail {
  const minutes = limits.passwordResetLifetimeMinutes;
  const text = [
    'Someone (hopefully you) asked to reset the password of your Releases account.',
    '',
    'To choose a new password, open this link:',
    '',
    link,
    '',
    `It works once, for ${minutes} minutes. Setting a new password signs you out everywhere.`,
    '',
    'If you did not ask for this, you can ignore this mail: your password stays as it is, and the link expires by itself.',
    '',
  ].join('\n');
  const href = escapeHtml(link);
  const html = `<!doctype html>
<html><body style="font-family: sans-serif; line-height: 1.5">
<p>Someone (hopefully you) asked to reset the password of your Releases account.</p>
<p><a href="${href}">Choose a new password</a></p>
<p>Or copy this link into your browser:<br>${href}</p>
<p>It works once, for ${minutes} minutes. Setting a new password signs you out everywhere.</p>
<p>If you did not ask for this, you can ignore this mail: your password stays as it is, and the link expires by itself.</p>
</body></html>
`;
  return { to, subject: 'Reset your Releases password', text, html };
}
