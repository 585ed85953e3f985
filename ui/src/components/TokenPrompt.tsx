// Asks for a read token when the server answers 401 (it was started with read tokens).
import { useEffect, useState } from "react";
import { UNAUTHORIZED_EVENT, getToken, setToken } from "../api/auth";

export function TokenPrompt() {
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState("");
  const hadToken = Boolean(getToken());
  useEffect(() => {
    const show = () => setOpen(true);
    window.addEventListener(UNAUTHORIZED_EVENT, show);
    return () => window.removeEventListener(UNAUTHORIZED_EVENT, show);
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
          window.location.reload();
        }}
      >
        <h2>This server needs a token to read</h2>
        <p className="muted">
          {hadToken ? "The token given before was not accepted. " : ""}Enter a read or write token (one of the server's{" "}
          <code>HEADWATER_READ_TOKENS</code> or <code>HEADWATER_WRITE_TOKENS</code>). It is kept in this browser tab only.
        </p>
        <input type="password" autoFocus value={value} onChange={(e) => setValue(e.target.value)} data-testid="token-input" aria-label="Token" />
        <div className="modal-actions">
          <button type="submit" className="tb-btn primary" data-testid="token-submit">
            Continue
          </button>
        </div>
      </form>
    </div>
  );
}
