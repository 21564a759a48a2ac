import type { Db } from "@/lib/db/client";
import { GANACHE_ADDRESSES } from "@/dev/local-chain";
import { usdcToAtomic } from "@/lib/shared/money";
import type { Category } from "@/lib/shared/enums";

/**
 * Demo data with fixed ids, written with upserts: running it twice changes nothing.
 * Demo wallets are the local chain's deterministic accounts, so demo agents can be paid there.
 */
const demoWallet = (index: number) => GANACHE_ADDRESSES[index]!;

const AGENTS: { name: string; categories: Category[]; description: string }[] = [
  {
    name: "Quill",
    categories: ["writing", "marketing", "seo"],
    description: "Long-form articles and landing-page copy with sources.",
  },
  {
    name: "Lens",
    categories: ["research", "data"],
    description: "Desk research, market maps and cited summaries.",
  },
  {
    name: "Forge",
    categories: ["engineering", "devops", "testing"],
    description: "TypeScript and Go services, CI pipelines, test suites.",
  },
  {
    name: "Pixel",
    categories: ["design", "image"],
    description: "UI mockups, icons and illustration sets.",
  },
  {
    name: "Ledger",
    categories: ["finance", "trading", "blockchain"],
    description: "On-chain analytics, backtests and treasury reports.",
  },
  {
    name: "Babel",
    categories: ["translation", "writing"],
    description: "Translation across 40 languages with glossary control.",
  },
  {
    name: "Sentinel",
    categories: ["security", "blockchain"],
    description: "Smart-contract reviews and dependency audits.",
  },
  {
    name: "Echo",
    categories: ["audio", "video"],
    description: "Transcripts, podcast edits and captions.",
  },
  {
    name: "Counsel",
    categories: ["legal", "consulting"],
    description: "Contract summaries and policy drafts (not legal advice).",
  },
  {
    name: "Helpdesk",
    categories: ["customer_support", "ops"],
    description: "Ticket triage and support macros.",
  },
  {
    name: "Buzz",
    categories: ["social_media", "marketing"],
    description: "Social calendars and campaign copy.",
  },
  {
    name: "Tutor",
    categories: ["education", "research"],
    description: "Course outlines, quizzes and explainers.",
  },
];

const OPEN_JOBS: {
  title: string;
  category: Category;
  budget: number;
  days: number;
  description: string;
  requirements: string[];
}[] = [
  {
    title: "Competitive landscape of x402 facilitators",
    category: "research",
    budget: 120,
    days: 5,
    description:
      "Compare the public x402 facilitators: fees, networks, limits and uptime. A table plus a two-page summary.",
    requirements: ["Cite every source", "Markdown table"],
  },
  {
    title: "Write the launch blog post",
    category: "writing",
    budget: 80,
    days: 3,
    description: "A 1,200-word launch post for our agent marketplace, friendly but precise.",
    requirements: ["1,000 to 1,500 words"],
  },
  {
    title: "Add end-to-end tests to our checkout",
    category: "testing",
    budget: 250.5,
    days: 7,
    description: "Playwright tests covering the checkout flow of our Next.js shop, running in CI.",
    requirements: ["Playwright", "Runs headless in CI"],
  },
  {
    title: "Logo and icon set for a DeFi dashboard",
    category: "design",
    budget: 300,
    days: 10,
    description: "A wordmark and 24 matching icons, SVG, light and dark.",
    requirements: [],
  },
];

export async function seedDemoData(db: Db) {
  const posters = [demoWallet(2), demoWallet(3)];
  const operators = [demoWallet(4), demoWallet(5), demoWallet(6), demoWallet(7)];
  for (const address of [...posters, ...operators]) {
    await db.wallet.upsert({ where: { address }, create: { address }, update: {} });
  }
  const base = Date.UTC(2026, 0, 1);

  for (const [index, agent] of AGENTS.entries()) {
    const id = `agent_demo_${String(index + 1).padStart(2, "0")}`;
    const operator = operators[index % operators.length]!;
    await db.agent.upsert({
      where: { id },
      create: {
        id,
        ...agent,
        walletAddress: operator,
        operatorAddress: operator,
        createdAt: new Date(base + index * 60_000),
      },
      update: {},
    });

    // Each agent has one or two completed, reviewed jobs, so ratings are real aggregates.
    for (let n = 0; n < 1 + (index % 2); n++) {
      const poster = posters[(index + n) % posters.length]!;
      const jobId = `job_demo_done_${index + 1}_${n + 1}`;
      const category = agent.categories[0]!;
      await db.job.upsert({
        where: { id: jobId },
        create: {
          id: jobId,
          title: `${agent.name}: ${category.replace("_", " ")} task #${n + 1}`,
          description: `A finished ${category} job delivered by ${agent.name}.`,
          category,
          budgetAtomic: usdcToAtomic(50 + index * 5),
          timelineDays: 3,
          requirements: [],
          handle: `@${poster.slice(2, 8)}`,
          status: "completed",
          posterAddress: poster,
          assignedAgentId: id,
          createdAt: new Date(base + index * 3_600_000 + n),
          deliveredAt: new Date(base + index * 3_600_000 + n + 1000),
          completedAt: new Date(base + index * 3_600_000 + n + 2000),
        },
        update: {},
      });
      await db.review.upsert({
        where: { jobId_reviewerAddress: { jobId, reviewerAddress: poster } },
        create: {
          id: `rev_demo_${index + 1}_${n + 1}`,
          agentId: id,
          jobId,
          reviewerAddress: poster,
          rating: 5 - ((index + n) % 3),
          comment: ["Excellent, on time.", "Good work, minor fixes needed.", "Solid result."][
            (index + n) % 3
          ]!,
        },
        update: {},
      });
      await db.wallet.update({ where: { address: poster }, data: { verified: true } });
    }
  }

  for (const [index, job] of OPEN_JOBS.entries()) {
    const id = `job_demo_open_${index + 1}`;
    const poster = posters[index % posters.length]!;
    await db.job.upsert({
      where: { id },
      create: {
        id,
        title: job.title,
        description: job.description,
        category: job.category,
        budgetAtomic: usdcToAtomic(job.budget),
        timelineDays: job.days,
        requirements: job.requirements,
        handle: `@${poster.slice(2, 8)}`,
        posterAddress: poster,
        createdAt: new Date(Date.UTC(2026, 10, 1) + index * 60_000),
      },
      update: {},
    });
  }

  const [agents, jobs, reviews] = await Promise.all([
    db.agent.count(),
    db.job.count(),
    db.review.count(),
  ]);
  return { agents, jobs, reviews };
}
