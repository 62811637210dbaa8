import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

test('BACKUP_SCHEDULE must be a cron pattern and needs BACKUP_DIR; BACKUP_KEEP is at least 1', () => {
  const config = loadConfig({ BACKUP_SCHEDULE: '0 3 * * *', BACKUP_DIR: '/backups' });
  assert.equal(config.backupSchedule, '0 3 * * *');
  assert.equal(config.backupKeep, 7);
  assert.throws(
    () => loadConfig({ BACKUP_SCHEDULE: '0 3 * * *' }),
    (error) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /BACKUP_SCHEDULE needs BACKUP_DIR/);
      return true;
    },
  );
  for (const pattern of ['every night', '61 * * * *']) {
    assert.throws(
      () => loadConfig({ BACKUP_SCHEDULE: pattern, BACKUP_DIR: '/backups' }),
      /BACKUP_SCHEDULE is not a cron pattern/,
      pattern,
    );
  }
  assert.throws(() => loadConfig({ BACKUP_KEEP: '0' }), /BACKUP_KEEP/);
});
