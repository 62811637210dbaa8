import { useEffect, useState } from 'preact/hooks';
import { t } from '../../i18n/index.js';
import { linkClick } from '../../router';
import { session } from '../../session';
import { useStore } from '../../store';
import { InlineError, useInlineError } from '../../ui/inline-error';
import { refreshUser } from '../confirm-address';
import { AuditSection } from './admin-audit';
import { JobsSection } from './admin-jobs';
import { LimitsSection } from './admin-limits';
import { RoomsSection } from './admin-rooms';
import { UsersSection } from './admin-users';

const TABS = ['users', 'rooms', 'jobs', 'limits', 'audit'] as const;
type Tab = (typeof TABS)[number];

/** A tab's name (and its section's heading). */
function tabWords(tab: Tab): string {
  switch (tab) {
    case 'users':
      return t('admin:tabs.users');
    case 'rooms':
      return t('admin:tabs.rooms');
    case 'jobs':
      return t('admin:tabs.jobs');
    case 'limits':
      return t('admin:tabs.limits');
    case 'audit':
      return t('admin:tabs.audit');
  }
}

/** `/admin`: the instance admin's page; anyone else is told it is not for them. */
export function AdminPage() {
  const { user } = useStore(session);
  const [checked, setChecked] = useState(false);
  const { error, attempt } = useInlineError();
  // Whether the user is an admin is read again: ADMIN_EMAILS or the provider may have changed.
  useEffect(() => void attempt(refreshUser).then(() => setChecked(true)), []);
  if (!user) return <NotAllowed why={t('admin:page.logInFirst')} />;
  if (!checked)
    return <main class="page">{error ? <InlineError message={error} /> : <p>{t('common:loading')}</p>}</main>;
  if (!user.admin) return <NotAllowed why={t('admin:page.notAllowed')} />;
  return <AdminTabs email={user.email} />;
}

function NotAllowed({ why }: { why: string }) {
  return (
    <main class="page narrow">
      <h1>{t('admin:page.title')}</h1>
      <p role="alert">{why}</p>
      <a href="/" onClick={linkClick}>
        {t('admin:page.backToRooms')}
      </a>
    </main>
  );
}

function AdminTabs({ email }: { email: string }) {
  const [tab, setTab] = useState<Tab>('users');
  return (
    <main class="page admin">
      <header class="topbar">
        <h1>{t('admin:page.title')}</h1>
        <span>
          {email}{' '}
          <a href="/" onClick={linkClick}>
            {t('admin:page.yourRooms')}
          </a>
        </span>
      </header>
      <div class="tabs" role="tablist" aria-label={t('admin:page.sections')}>
        {TABS.map((name) => (
          <button key={name} type="button" role="tab" aria-selected={tab === name} onClick={() => setTab(name)}>
            {tabWords(name)}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={tabWords(tab)}>
        {tab === 'users' && <UsersSection />}
        {tab === 'rooms' && <RoomsSection />}
        {tab === 'jobs' && <JobsSection />}
        {tab === 'limits' && <LimitsSection />}
        {tab === 'audit' && <AuditSection />}
      </div>
    </main>
  );
}
