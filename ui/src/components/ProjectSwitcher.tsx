// The header's project switcher: the caller's projects (from their token's memberships) and "all of
// them"; the choice is the Headwater-Project header of every later API call (auth.ts).
import { catalog } from "../api/catalog";
import { useAsync } from "../lib/useAsync";
import { SIGN_IN_EVENT } from "./TokenPrompt";
import { useSession } from "./session";

export function ProjectSwitcher() {
  const { me, project, choose } = useSession();
  // an admin is a member of no project but may act as any: every project is offered
  const admin = Boolean(me?.admin);
  const all = useAsync((s) => (admin ? catalog.projects(s) : Promise.resolve({ projects: [] })), [admin]);
  const signIn = () => window.dispatchEvent(new CustomEvent(SIGN_IN_EVENT));
  if (!me || me.user === "anonymous") {
    return (
      <button className="tb-btn signin" onClick={signIn} data-testid="sign-in">
        Sign in
      </button>
    );
  }
  const projects = me.admin
    ? (all.data?.projects ?? []).map((p) => ({ project: p.id, role: "admin" }))
    : me.memberships.map((m) => ({ project: m.project, role: m.role as string }));
  return (
    <div className="project-switcher" data-testid="project-switcher">
      <span className="muted who" data-testid="who" title="The token's user">
        {me.user}
      </span>
      <select
        aria-label="Project"
        data-testid="project-select"
        value={project ?? ""}
        onChange={(e) => choose(e.target.value || null)}
      >
        <option value="">{me.admin ? "All projects (admin)" : "All my projects"}</option>
        {project && !projects.some((m) => m.project === project) && <option value={project}>{project}</option>}
        {projects.map((m) => (
          <option key={m.project} value={m.project}>
            {m.project} ({m.role})
          </option>
        ))}
      </select>
      <button className="tb-btn" onClick={signIn} data-testid="switch-token" title="Use another token">
        Token…
      </button>
    </div>
  );
}
