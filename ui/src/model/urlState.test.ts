import { describe, expect, it } from "vitest";
import { decodeView, defaultView, encodeView, type ViewState } from "./urlState";

describe("URL state", () => {
  it("round-trips every field, including ids with ':' '/' '&' and '#'", () => {
    const v: ViewState = {
      node: "dataset:postgres://db:5432:hr.public.pay&roll#1",
      tab: "history",
      depth: 4,
      column: "datasetField:postgres://db:5432:hr.public.pay&roll#1:total pay",
      expansions: ["u:job:spark:job1", "d:dataset:file:/data/x.csv"],
      openColumns: ["dataset:file:/data/x.csv", "dataset:file:/data/y.csv"],
      at: "2026-11-20T10:00:00.000Z",
      compareFrom: "2026-11-01T00:00:00.000Z",
      datasetsOnly: true,
      impact: true,
      directOnly: true,
      indirect: true,
      groupJobs: true,
      openJobs: ["job:airflow:dag.one", "job:spark:app&x"],
      catalogNodes: true,
    };
    expect(decodeView(encodeView(v))).toEqual(v);
    expect(decodeView(`?${encodeView(v)}`)).toEqual(v);
  });

  it("reads a bare column name as a column of the asset (short links)", () => {
    expect(decodeView("node=dataset:file:/w/pay&col=Total")?.column).toBe("datasetField:file:/w/pay:Total");
    expect(decodeView("node=dataset:file:/w/pay&col=datasetField:file:/x:a")?.column).toBe("datasetField:file:/x:a");
    expect(decodeView("node=job:ns:j&col=Total")?.column).toBe("Total");
  });

  it("keeps the default view short", () => {
    expect(encodeView(defaultView("job:ns:j"))).toBe("node=job%3Ans%3Aj");
  });

  it("folds the catalog's nodes unless the asset is one of them; `cat` says otherwise", () => {
    const plain = "dataset:file:/w/pay";
    const published = "dataset:headwater-catalog://hr:payroll/pay";
    expect(defaultView(plain).catalogNodes).toBe(false);
    expect(defaultView(published).catalogNodes).toBe(true);
    expect(defaultView("job:headwater-catalog://hr:subscription/7").catalogNodes).toBe(true);
    expect(decodeView(`node=${plain}`)?.catalogNodes).toBe(false);
    expect(decodeView(`node=${plain}&cat=1`)?.catalogNodes).toBe(true);
    expect(decodeView(`node=${published}`)?.catalogNodes).toBe(true);
    expect(decodeView(`node=${published}&cat=0`)?.catalogNodes).toBe(false);
    // only a choice that differs from the asset's default goes into the URL
    expect(encodeView({ ...defaultView(plain), catalogNodes: true })).toBe("node=dataset%3Afile%3A%2Fw%2Fpay&cat=1");
    expect(encodeView(defaultView(published))).not.toContain("cat=");
    expect(encodeView({ ...defaultView(published), catalogNodes: false })).toContain("cat=0");
  });

  it("ignores malformed values", () => {
    const v = decodeView("node=job:a:b&tab=evil&depth=999&exp=zzz&exp=u:job:a:b&exp=u:job:a:b");
    expect(v).toEqual({ ...defaultView("job:a:b"), depth: 10, expansions: ["u:job:a:b"] });
    expect(decodeView("tab=schema")).toBeNull();
    expect(decodeView("node=x&depth=-3")?.depth).toBe(1);
    // opened parents mean nothing without grouping; only job ids are parents
    expect(decodeView("node=x&open=job:a:b")?.openJobs).toEqual([]);
    expect(decodeView("node=x&group=1&open=job:a:b&open=dataset:a:b&open=job:a:b")?.openJobs).toEqual(["job:a:b"]);
  });
});
