import type { Metadata } from "next";
import { connection } from "next/server";
import { NotificationList } from "@/components/notifications/notification-list";
import { MarkReadButton } from "@/components/notifications/mark-read-button";
import { PageHeader } from "@/components/page-header";
import { EmptyState } from "@/components/ui/empty-state";
import { SignInPrompt } from "@/components/wallet/sign-in-button";
import { currentWallet } from "@/lib/auth/session-cookie";
import { getDb } from "@/lib/db";
import { listNotifications } from "@/lib/notifications/notifications";
import { requestTime } from "@/lib/shared/format";

export const metadata: Metadata = { title: "Notifications" };

export default async function NotificationsPage() {
  await connection();
  const viewer = await currentWallet();
  const page = viewer
    ? await listNotifications(await getDb(), viewer, { unread: false, limit: 50 })
    : null;
  const newest = page?.items[0];
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <PageHeader
        title="Notifications"
        description="New proposals on your jobs, answers to your proposals, deliveries, completions, reviews and messages."
      />
      {!page ? (
        <SignInPrompt action="see your notifications" />
      ) : page.items.length === 0 ? (
        <EmptyState title="Nothing yet">
          You will be told here when something happens on your jobs and proposals.
        </EmptyState>
      ) : (
        <section className="card p-5 sm:p-8" aria-labelledby="notifications-heading">
          <div className="mb-2 flex flex-wrap items-center justify-between gap-3">
            <h2 id="notifications-heading" className="text-lg font-semibold">
              {page.unreadCount > 0 ? `${page.unreadCount} unread` : "All read"}
            </h2>
            {page.unreadCount > 0 && newest ? (
              <MarkReadButton target={{ upTo: newest.id }} label="Mark all read" />
            ) : null}
          </div>
          <NotificationList notifications={page.items} now={requestTime()} />
        </section>
      )}
    </div>
  );
}
