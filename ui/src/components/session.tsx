// Who the token is (GET /catalog/me) and the project context, for every page: the header's project
// switcher sets the context, pages ask `useSession()` what the caller may do in it.
import { createContext, useCallback, useContext, useEffect, useState } from "react";
import { PROJECT_EVENT, getProject, setProject } from "../api/auth";
import { catalog, roleIn, type Me, type Role } from "../api/catalog";
import { ApiError } from "../api/client";

export interface Session {
  me: Me | null;
  /** the project in context (sent as Headwater-Project), null: all of the caller's projects */
  project: string | null;
  /** the caller's role in `project`, or in their only project when none is chosen */
  role: Role | null;
  /** the project a change acts for: the context, else the caller's only project */
  actingProject: string | null;
  choose: (project: string | null) => void;
}

const SessionContext = createContext<Session>({ me: null, project: null, role: null, actingProject: null, choose: () => undefined });

export function useSession(): Session {
  return useContext(SessionContext);
}

export function useProjectContext(): string | null {
  const [project, setP] = useState(getProject());
  useEffect(() => {
    const on = () => setP(getProject());
    window.addEventListener(PROJECT_EVENT, on);
    return () => window.removeEventListener(PROJECT_EVENT, on);
  }, []);
  return project;
}

export function SessionProvider({ children }: { children: React.ReactNode }) {
  const project = useProjectContext();
  const [me, setMe] = useState<Me | null>(null);
  useEffect(() => {
    const ctl = new AbortController();
    catalog.me(ctl.signal).then(
      // a server without the catalog answers something else (404, or another shape): no session
      (m) => !ctl.signal.aborted && setMe(Array.isArray(m?.memberships) ? m : null),
      (e: unknown) => {
        if (ctl.signal.aborted) return;
        // a context this token is not a member of (another token, a stale link): back to no context
        if (e instanceof ApiError && e.status === 403 && getProject()) setProject(null);
        else setMe(null);
      },
    );
    return () => ctl.abort();
  }, [project]);
  const choose = useCallback((p: string | null) => setProject(p), []);
  const only = me && !me.admin && me.memberships.length === 1 ? me.memberships[0].project : null;
  const actingProject = project ?? only;
  const value: Session = { me, project, role: roleIn(me, actingProject), actingProject, choose };
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
