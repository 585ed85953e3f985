import { describe, expectTypeOf, it } from "vitest";
import type { Answer, DatasetDetails, JobDetails, LineageAnswer, ListNode, NodeDetails, Run } from "./types";
import type { components } from "./schema";

// Checked by tsc (npm run typecheck): the generated path types lead to the named models.
describe("generated API types", () => {
  it("type each path's answer with its model", () => {
    expectTypeOf<Answer<"/api/v1/graph/lineage">>().toEqualTypeOf<LineageAnswer>();
    expectTypeOf<Answer<"/api/v1/graph/recent">["items"][number]>().toEqualTypeOf<ListNode>();
    expectTypeOf<Answer<"/api/v1/graph/node">>().toEqualTypeOf<components["schemas"]["NodeDetails"]>();
    expectTypeOf<NodeDetails>().toEqualTypeOf<DatasetDetails | JobDetails>();
    expectTypeOf<Answer<"/api/v1/graph/runs">["runs"][number]>().toEqualTypeOf<Run>();
  });
});
