import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareContent, FeatureContent } from '../../src/geo/feature-content.js';

const point = (x: number) => `{"type":"Point","coordinates":[${x},0]}`;

/** A layer of `count` points, feature i at x = i named "n<i>", with `edit` applied to each. */
function layer(count: number, edit: (id: number) => { x?: number; name?: string } | null = () => ({})) {
  const content = new FeatureContent();
  for (let id = 1; id <= count; id++) {
    const change = edit(id);
    if (change) content.add(id, point(change.x ?? id), JSON.stringify({ name: change.name ?? `n${id}` }));
  }
  return content.result();
}

test('a refresh counts changed, added and removed features by content, past the first thousand', () => {
  const before = layer(3000);
  const after = layer(3005, (id) => {
    if (id === 7) return null; // removed
    if (id === 2500) return { name: 'renamed' }; // changed
    if (id === 10) return { x: 10.5 }; // moved
    return {};
  });
  assert.equal(before.count, 3000);
  assert.equal(after.count, 3004);
  const changes = compareContent(before, after);
  assert.deepEqual(
    { added: changes.added, changed: changes.changed, removed: changes.removed },
    { added: 5, changed: 2, removed: 1 },
  );
  assert.deepEqual(
    changes.touched.sort((a, b) => a - b),
    [7, 10, 2500],
  );
  assert.deepEqual(compareContent(before, layer(3000)), { added: 0, changed: 0, removed: 0, touched: [] });
});

test('features of the same content are matched one for one, whatever their ids', () => {
  const same = (count: number) => {
    const content = new FeatureContent();
    for (let id = 1; id <= count; id++) content.add(id * 10, point(0), '{}');
    return content.result();
  };
  // Renumbered but the same: unchanged. One more of them: one added.
  assert.deepEqual(compareContent(same(3), same(3)), { added: 0, changed: 0, removed: 0, touched: [] });
  assert.deepEqual(compareContent(same(3), same(4)), { added: 1, changed: 0, removed: 0, touched: [] });
  // Matched by id first: of two alike, the one whose id kept its content is unchanged.
  const twins = new FeatureContent();
  twins.add(1, point(0), '{}');
  twins.add(2, point(0), '{}');
  const edited = new FeatureContent();
  edited.add(1, point(0), '{}');
  edited.add(2, point(0), '{"name":"b"}');
  assert.deepEqual(compareContent(twins.result(), edited.result()), { added: 0, changed: 1, removed: 0, touched: [2] });
  const fewer = compareContent(same(4), same(3));
  assert.deepEqual({ ...fewer, touched: fewer.touched.length }, { added: 0, changed: 0, removed: 1, touched: 1 });
});
