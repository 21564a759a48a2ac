import type { ReactNode } from "react";
import type { Page } from "@/lib/kernel/pagination";
import type { MyJobGroup } from "@/lib/shared/schemas/me";
import type { MyJobView } from "@/lib/shared/view-types";
import { type EscrowAmounts, jobEscrowLine } from "./escrow-words";
import { MyJobCard } from "./my-job-card";
import { WorkSection } from "./work-section";

/** What a job list of /me needs to draw one group: its page and how to draw each job. */
export interface JobListProps {
  sections: {
    group: MyJobGroup;
    title: string;
    description?: string;
    empty: string;
    hideWhenEmpty?: boolean;
  }[];
  pages: Partial<Record<MyJobGroup, Page<MyJobView>>>;
  /** The section shown alone (paged), if any. */
  alone: string | undefined;
  cursor: string | undefined;
  now: number;
  /** The line under each job and its action in place. */
  render: (group: MyJobGroup, item: MyJobView) => { detail?: ReactNode; action?: ReactNode };
  /** The jobs' protected payments, and whose side of them this list is (the poster's: spent). */
  escrow: { byJob: Map<string, EscrowAmounts>; side: "earned" | "spent" };
}

/** The job groups of one side of /me, each a WorkSection of MyJobCards. */
export function JobLists({ sections, pages, alone, cursor, now, render, escrow }: JobListProps) {
  return sections.map((section) => {
    const page = pages[section.group];
    if (!page) return null;
    if (section.hideWhenEmpty && page.items.length === 0 && alone !== section.group) return null;
    return (
      <WorkSection
        key={section.group}
        id={section.group}
        title={section.title}
        description={section.description}
        empty={section.empty}
        count={page.items.length}
        nextCursor={page.nextCursor}
        cursor={alone === section.group ? cursor : undefined}
        alone={alone === section.group}
      >
        {page.items.map((item) => {
          const { detail, action } = render(section.group, item);
          const held = escrow.byJob.get(item.job.id);
          return (
            <li key={item.job.id}>
              <MyJobCard
                job={item.job}
                now={now}
                detail={detail}
                payment={held ? jobEscrowLine(held, escrow.side) : undefined}
              >
                {action}
              </MyJobCard>
            </li>
          );
        })}
      </WorkSection>
    );
  });
}
