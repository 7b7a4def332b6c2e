import { html } from '../../paypage/html.js';
import type { UserRow } from '../../users/repository.js';
import { STAFF_ROLES } from '../../users/schema.js';
import { csrfField, layout, type PageChrome } from '../layout.js';
import type { View } from './view.js';

export interface NewUserValues {
  name: string;
  phone: string;
  role: string;
}

/** The owner's staff: who may sign in, with which role; add, change a role, remove (PRODUCT part 23). */
export function renderUsers(v: View, users: UserRow[], values: NewUserValues, flash?: PageChrome['flash']): string {
  const { t } = v;
  const manage = v.may('users.manage');
  const staff = users.filter((u) => u.role !== 'owner');
  const body = html`<h1>${t('users.title')}</h1>
<section class="card" aria-labelledby="people-h"><h2 id="people-h">${t('users.title')}</h2>
<p class="muted">${t('users.intro')}</p>
<ul class="list">${users.map(
    (u) =>
      html`<li><span>${u.name}<br><span class="muted">+${u.phone} · ${t(`role.${u.role}`)}</span></span>${
        manage && u.role !== 'owner'
          ? html`<form class="inline" method="post" action="/dashboard/users/${u.id}/remove">${csrfField(v.csrfToken)}<button type="submit" class="danger" aria-label="${t('users.remove')}: ${u.name}">${t('users.remove')}</button></form>`
          : ''
      }</li>`,
  )}</ul>
</section>
${
  manage
    ? html`<form class="card" method="post" action="/dashboard/users">${csrfField(v.csrfToken)}
<h2>${t('users.add')}</h2>
<label for="user-name">${t('users.name')}</label><input id="user-name" name="name" required maxlength="120" value="${values.name}">
<label for="user-phone">${t('users.phone')}</label><input id="user-phone" name="phone" type="tel" required maxlength="40" value="${values.phone}">
<label for="user-role">${t('users.role')}</label><select id="user-role" name="role">${STAFF_ROLES.map(
        (role) =>
          html`<option value="${role}"${role === values.role ? html` selected` : ''}>${t(`role.${role}`)}</option>`,
      )}</select>
<div class="actions"><button type="submit">${t('users.add')}</button></div>
</form>${
        staff.length > 0
          ? html`<form class="card" method="post" action="/dashboard/users/role">${csrfField(v.csrfToken)}
<h2>${t('users.change_role')}</h2>
<label for="role-user">${t('users.person')}</label><select id="role-user" name="user_id">${staff.map(
              (u) => html`<option value="${u.id}">${u.name} (${t(`audit.role.${u.role}`)})</option>`,
            )}</select>
<label for="role-new">${t('users.new_role')}</label><select id="role-new" name="role">${STAFF_ROLES.map(
              (role) => html`<option value="${role}">${t(`role.${role}`)}</option>`,
            )}</select>
<div class="actions"><button type="submit">${t('users.change_role')}</button></div>
</form>`
          : ''
      }`
    : ''
}`;
  return layout(v.chrome(t('users.title'), 'users', flash), body);
}
