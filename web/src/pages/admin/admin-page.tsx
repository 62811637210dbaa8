import { useEffect, useState } from 'preact/hooks';
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

const TABS = ['Users', 'Rooms', 'Jobs', 'Limits', 'Audit'] as const;
type Tab = (typeof TABS)[number];

/** `/admin`: the instance admin's page; anyone else is told it is not for them. */
export function AdminPage() {
  const { user } = useStore(session);
  const [checked, setChecked] = useState(false);
  const { error, attempt } = useInlineError();
  // Whether the user is an admin is read again: ADMIN_EMAILS or the provider may have changed.
  useEffect(() => void attempt(refreshUser).then(() => setChecked(true)), []);
  if (!user) return <NotAllowed why="Log in first: this page is for the administrators of this Maproom." />;
  if (!checked) return <main class="page">{error ? <InlineError message={error} /> : <p>Loading…</p>}</main>;
  if (!user.admin)
    return <NotAllowed why="You are not allowed here: this page is for the administrators of this Maproom." />;
  return <AdminTabs email={user.email} />;
}

function NotAllowed({ why }: { why: string }) {
  return (
    <main class="page narrow">
      <h1>Administration</h1>
      <p role="alert">{why}</p>
      <a href="/" onClick={linkClick}>
        Back to your rooms
      </a>
    </main>
  );
}

function AdminTabs({ email }: { email: string }) {
  const [tab, setTab] = useState<Tab>('Users');
  return (
    <main class="page admin">
      <header class="topbar">
        <h1>Administration</h1>
        <span>
          {email}{' '}
          <a href="/" onClick={linkClick}>
            Your rooms
          </a>
        </span>
      </header>
      <div class="tabs" role="tablist" aria-label="Sections">
        {TABS.map((name) => (
          <button key={name} type="button" role="tab" aria-selected={tab === name} onClick={() => setTab(name)}>
            {name}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={tab}>
        {tab === 'Users' && <UsersSection />}
        {tab === 'Rooms' && <RoomsSection />}
        {tab === 'Jobs' && <JobsSection />}
        {tab === 'Limits' && <LimitsSection />}
        {tab === 'Audit' && <AuditSection />}
      </div>
    </main>
  );
}
