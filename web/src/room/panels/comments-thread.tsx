import { useState } from 'preact/hooks';
import type { Comment } from '../../api/types';
import { session } from '../../session';
import { useStore } from '../../store';
import { deleteComment, deleteReply, postComment, postReply, resolveComment } from '../actions/comments';
import type { RoomModel } from '../room-model';
import { useRoom } from '../room-context';
import { offerUndoDelete } from '../undo-delete';
import { inputLimits } from '../../ui/limits';
import { TextAreaField } from '../../ui/fields';
import { formatDateTime, t } from '../../i18n/index.js';

/** The comment thread of one object: comment, reply, resolve, delete your own (the owner any). */
export function CommentsThread({
  objectType,
  objectId,
}: {
  objectType: 'marker' | 'drawing' | 'layer';
  objectId: string;
}) {
  const { model, attempt, isOwner } = useRoom();
  const { user } = useStore(session);
  const comments = useStore(model)!.comments.filter((c) => c.objectId === objectId);
  const [body, setBody] = useState('');
  const post = (event: Event) => {
    event.preventDefault();
    if (!body.trim()) return;
    void attempt(async () => {
      await postComment(model, { objectType, objectId, body: body.trim() });
      setBody('');
    });
  };
  const mine = (c: { author: { kind: string; id: string } }) =>
    isOwner || (c.author.kind === 'user' && c.author.id === user?.id);
  return (
    <section class="comments" aria-label={t('markers:comments.label')}>
      <h3>{t('markers:comments.heading', { number: comments.length })}</h3>
      <ul class="thread">
        {comments.map((c) => (
          <CommentItem
            key={c.id}
            comment={c}
            canDelete={mine(c)}
            canDeleteReply={mine}
            act={attempt}
            model={model}
            signedIn={!!user}
          />
        ))}
      </ul>
      {user && (
        <form class="form" onSubmit={post} aria-label={t('markers:comments.newLabel')}>
          <TextAreaField
            label={t('markers:comments.comment')}
            value={body}
            onInput={setBody}
            rows={2}
            {...inputLimits('POST /api/rooms/{roomId}/comments', 'body')}
          />
          <button type="submit">{t('markers:comments.post')}</button>
        </form>
      )}
    </section>
  );
}

interface ItemProps {
  comment: Comment;
  canDelete: boolean;
  canDeleteReply: (r: Comment['replies'][number]) => boolean;
  act: (work: () => Promise<unknown>) => Promise<unknown>;
  model: RoomModel;
  signedIn: boolean;
}

function CommentItem({ comment, canDelete, canDeleteReply, act, model, signedIn }: ItemProps) {
  const room = useRoom();
  const [reply, setReply] = useState('');
  return (
    <li class={comment.resolved ? 'resolved' : ''} data-testid="comment">
      <p class="body">{comment.body}</p>
      <p class="muted">
        <span class="author">{authorName(comment.author)}</span> · {when(comment.createdAt)}
        {comment.resolved && ` · ${t('markers:comments.resolved')}`}
      </p>
      <ul class="replies">
        {comment.replies.map((r) => (
          <li key={r.id} data-testid="reply">
            <p class="body">{r.body}</p>
            <p class="muted">
              <span class="author">{authorName(r.author)}</span> · {when(r.createdAt)}
            </p>
            {canDeleteReply(r) && (
              <button type="button" class="link" onClick={() => act(() => deleteReply(model, comment.id, r.id))}>
                {t('markers:comments.deleteReply')}
              </button>
            )}
          </li>
        ))}
      </ul>
      {signedIn && (
        <form
          class="inline"
          aria-label={t('markers:comments.replyLabel')}
          onSubmit={(e) => {
            e.preventDefault();
            if (reply.trim())
              void act(async () => {
                await postReply(model, comment.id, reply.trim());
                setReply('');
              });
          }}
        >
          <input
            aria-label={t('markers:comments.replyLabel')}
            placeholder={t('markers:comments.replyPlaceholder')}
            value={reply}
            onInput={(e) => setReply(e.currentTarget.value)}
            {...inputLimits('POST /api/rooms/{roomId}/comments/{commentId}/replies', 'body')}
          />
          <button type="submit">{t('markers:comments.reply')}</button>
        </form>
      )}
      {signedIn && (
        <button
          type="button"
          class="link"
          onClick={() => act(() => resolveComment(model, comment.id, !comment.resolved))}
        >
          {comment.resolved ? t('markers:comments.reopen') : t('markers:comments.resolve')}
        </button>
      )}
      {canDelete && (
        <button
          type="button"
          class="link"
          onClick={async () =>
            (await act(async () => {
              await deleteComment(model, comment.id);
              return true;
            })) && offerUndoDelete(room, t('markers:comments.undoWhat'), 'comment', comment.id)
          }
        >
          {t('markers:comments.delete')}
        </button>
      )}
    </li>
  );
}

/** Who wrote a comment: the name the service gives (a revoked token has none). */
const authorName = (author: Comment['author']) =>
  author.name ?? (author.kind === 'token' ? t('markers:comments.revokedToken') : t('markers:comments.someone'));

export const when = (ms: number) => formatDateTime(ms);
