// Asks for a token when the server answers 401: it needs one to read, or it does not know the one this tab holds
// (replaced, revoked, expired: the server refuses an unknown token even where reads need none).
import { useEffect, useState } from "react";
import { UNAUTHORIZED_EVENT, getToken, setProject, setToken } from "../api/auth";

/** Dispatched by the header's "Sign in": asks for a catalog user's (or a read/write) token. */
export const SIGN_IN_EVENT = "headwater:sign-in";

export function TokenPrompt() {
  const [open, setOpen] = useState<false | "needed" | "sign-in">(false);
  const [value, setValue] = useState("");
  const hadToken = Boolean(getToken());
  useEffect(() => {
    const show = () => setOpen("needed");
    const signIn = () => setOpen("sign-in");
    window.addEventListener(UNAUTHORIZED_EVENT, show);
    window.addEventListener(SIGN_IN_EVENT, signIn);
    return () => {
      window.removeEventListener(UNAUTHORIZED_EVENT, show);
      window.removeEventListener(SIGN_IN_EVENT, signIn);
    };
  }, []);
  if (!open) return null;
  return (
    <div className="modal-backdrop">
      <form
        className="modal"
        data-testid="token-prompt"
        onSubmit={(e) => {
          e.preventDefault();
          setToken(value.trim() || null);
          setProject(null); // another token: its own projects
          window.location.reload();
        }}
      >
        {open === "needed" && hadToken ? (
          <>
            <h2>Your token was not accepted</h2>
            <p className="muted" data-testid="token-refused">
              The server does not know the token this tab signed in with: it may have been replaced, revoked or expired. Enter
              another, or leave it empty to go on without one (where the server lets anyone read). It is kept in this browser tab
              only.
            </p>
          </>
        ) : open === "needed" ? (
          <>
            <h2>This server needs a token to read</h2>
            <p className="muted">
              Enter a read or write token (one of the server's <code>HEADWATER_READ_TOKENS</code> or{" "}
              <code>HEADWATER_WRITE_TOKENS</code>). It is kept in this browser tab only.
            </p>
          </>
        ) : (
          <>
            <h2>Sign in with a token</h2>
            <p className="muted">
              Enter your catalog user's token (or a read or write token of the server). It is kept in this browser tab only; leave it
              empty to read anonymously.
            </p>
          </>
        )}
        <input type="password" autoFocus value={value} onChange={(e) => setValue(e.target.value)} data-testid="token-input" aria-label="Token" />
        <div className="modal-actions">
          {open === "sign-in" && (
            <button type="button" className="tb-btn" onClick={() => setOpen(false)}>
              Cancel
            </button>
          )}
          <button type="submit" className="tb-btn primary" data-testid="token-submit">
            Continue
          </button>
        </div>
      </form>
    </div>
  );
}
