// The profile's avatar: the person's picture, a button to upload a new one
// (POST /users/me/avatar) and one to go back to the default (DELETE).
import { useRef, useState } from 'preact/hooks';
import { api, fileForm, ok } from './api';
import { Avatar, isLocalAvatar } from './Avatar';
import { changed, showError, state, useStore } from './store';

/** Shows the new avatar at once; the realm_user event tells the other pages. */
function remember(avatarUrl: string): void {
  const me = state.users.get(state.userId);
  if (me) state.users.set(me.user_id, { ...me, avatar_url: avatarUrl });
  changed();
}

/** The avatar part of the profile settings. */
export function AvatarSettings({ onDone }: { onDone: (notice: string) => void }) {
  const s = useStore();
  const me = s.users.get(s.userId);
  const [busy, setBusy] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  const act = async (work: () => Promise<{ avatar_url: string }>, done: string) => {
    setBusy(true);
    try {
      remember((await work()).avatar_url);
      onDone(done);
    } catch (error) {
      showError(error);
    } finally {
      setBusy(false);
    }
  };
  const upload = (file: File) =>
    act(
      () =>
        ok(
          api.POST('/users/me/avatar', {
            body: { filename: file as unknown as string },
            bodySerializer: () => fileForm('filename', file),
          }),
        ),
      'Avatar uploaded.',
    );
  return (
    <div class="avatar-settings">
      <Avatar userId={s.userId} name={me?.full_name ?? ''} size={64} />
      <input
        ref={picker}
        type="file"
        hidden
        aria-label="Avatar image"
        accept="image/png,image/jpeg,image/gif,image/webp,image/avif"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (file) void upload(file);
        }}
      />
      <button type="button" disabled={busy} onClick={() => picker.current?.click()}>
        Upload avatar
      </button>
      {isLocalAvatar(me?.avatar_url) && (
        <button
          type="button"
          disabled={busy}
          onClick={() => void act(() => ok(api.DELETE('/users/me/avatar')), 'Avatar removed.')}
        >
          Remove avatar
        </button>
      )}
    </div>
  );
}
