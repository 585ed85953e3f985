// The catalog's client pieces: the project context on every call, who may do what, restricted ids,
// and the catalog's badges and texts rendered as text.
import { cleanup, render } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { authHeaders, projectFromAddress, setProject, setToken } from "./auth";
import { NODES_QUERY_CHARS, canEdit, catalog, catalogHref, isRestricted, roleIn, type Me } from "./catalog";
import { api } from "./client";
import { CatalogRoleBadge, TermChips } from "../components/catalog";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  setToken(null);
  setProject(null);
});

describe("the project context", () => {
  beforeEach(() => setToken("tok"));

  it("is the Headwater-Project header of every call, with the token", async () => {
    setProject("producer");
    expect(authHeaders()).toEqual({ Authorization: "Bearer tok", "Headwater-Project": "producer" });
    const seen: Headers[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn((_url: string, init: RequestInit) => {
        seen.push(new Headers(init.headers));
        return Promise.resolve(new Response(JSON.stringify({ namespaces: [], assets: [] }), { status: 200 }));
      }),
    );
    await api.namespaces();
    await catalog.assets({ state: "published" });
    expect(seen.map((h) => h.get("Headwater-Project"))).toEqual(["producer", "producer"]);
    setProject(null);
    await api.namespaces();
    expect(seen[2].get("Headwater-Project")).toBeNull();
  });

  it("is taken from a page address's ?project=, and cleared by an empty one", () => {
    projectFromAddress("?node=x&project=consumer");
    expect(authHeaders()["Headwater-Project"]).toBe("consumer");
    projectFromAddress("?node=x");
    expect(authHeaders()["Headwater-Project"]).toBe("consumer");
    projectFromAddress("?project=");
    expect(authHeaders()["Headwater-Project"]).toBeUndefined();
  });

  it("sends changes as JSON with their method; repeats nodeId for the catalog nodes", async () => {
    const calls: Array<[string, RequestInit]> = [];
    vi.stubGlobal(
      "fetch",
      vi.fn((url: string, init: RequestInit) => {
        calls.push([url, init]);
        return Promise.resolve(new Response(JSON.stringify({ nodes: [] }), { status: 200 }));
      }),
    );
    await catalog.edit("a/1", { tags: ["pii"] });
    await catalog.nodes(["dataset:file:/x", "job:ns:j"]);
    expect(calls[0][0]).toBe("/api/v1/catalog/assets/a%2F1");
    expect(calls[0][1].method).toBe("PATCH");
    expect(JSON.parse(String(calls[0][1].body))).toEqual({ tags: ["pii"] });
    expect(calls[1][0]).toBe("/api/v1/catalog/nodes?nodeId=dataset%3Afile%3A%2Fx&nodeId=job%3Ans%3Aj");
  });
});

describe("catalog nodes of a big graph", () => {
  it("are asked in requests a server's request line takes, and merged; another shape answers none", async () => {
    const urls: string[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn((url: string) => {
        urls.push(url);
        const ids = new URLSearchParams(url.split("?")[1]).getAll("nodeId");
        const nodes = ids.filter((id) => id.endsWith("7")).map((node) => ({ node, role: "inventory" }));
        return Promise.resolve(new Response(JSON.stringify({ nodes }), { status: 200 }));
      }),
    );
    const ids = Array.from({ length: 3000 }, (_, i) => `dataset:warehouse://db.example:5432:schema.table_${i}`);
    const got = await catalog.nodes(ids);
    expect(urls.length).toBeGreaterThan(1);
    for (const u of urls) expect(u.split("?")[1].length).toBeLessThan(NODES_QUERY_CHARS + 200);
    expect(urls.flatMap((u) => new URLSearchParams(u.split("?")[1]).getAll("nodeId"))).toEqual(ids);
    expect(got.nodes.map((n) => n.node)).toEqual(ids.filter((id) => id.endsWith("7")));

    vi.stubGlobal("fetch", vi.fn(() => Promise.resolve(new Response("{}", { status: 200 }))));
    expect(await catalog.nodes(["dataset:a:b"])).toEqual({ nodes: [] });
  });
});

describe("roles and ids", () => {
  const me: Me = {
    user: "alice",
    admin: false,
    context: null,
    memberships: [
      { project: "producer", role: "owner" },
      { project: "consumer", role: "viewer" },
    ],
  };
  it("a member's role per project; an admin is an owner of every project", () => {
    expect(roleIn(me, "producer")).toBe("owner");
    expect(roleIn(me, "consumer")).toBe("viewer");
    expect(roleIn(me, "other")).toBeNull();
    expect(roleIn({ ...me, admin: true, memberships: [] }, "other")).toBe("owner");
    expect(canEdit("contributor")).toBe(true);
    expect(canEdit("viewer")).toBe(false);
    expect(canEdit(null)).toBe(false);
  });
  it("restricted nodes by type or id", () => {
    expect(isRestricted("dataset:restricted://hidden:1")).toBe(true);
    expect(isRestricted("job:restricted://hidden:2")).toBe(true);
    expect(isRestricted("x", "RESTRICTED")).toBe(true);
    expect(isRestricted("dataset:file:/data/a.csv", "DATASET")).toBe(false);
  });
  it("search filters in the address, empty ones left out", () => {
    expect(catalogHref({ q: "pay", state: "", tag: "pii" })).toBe("/catalog?q=pay&tag=pii");
    expect(catalogHref()).toBe("/catalog");
  });
});

describe("catalog texts are shown as text", () => {
  it("tags, terms and badges", () => {
    const evil = `<img src=x onerror="window.__xss=1">`;
    const { container } = render(
      <div>
        <TermChips items={[evil]} kind="tag" />
        <CatalogRoleBadge role="target" />
      </div>,
    );
    expect(container.querySelector("img")).toBeNull();
    expect(container.textContent).toContain(evil);
    expect(container.textContent).toContain("subscription target");
  });
});
