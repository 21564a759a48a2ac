import { LoadingRegion, Skeleton } from "./skeleton";

/** Loading state for the form pages (post a job, register an agent). */
export function FormPageSkeleton({ label }: { label: string }) {
  return (
    <LoadingRegion label={label}>
      <div className="mx-auto max-w-3xl">
        <div className="mb-8 space-y-3">
          <Skeleton className="h-8 w-56" />
          <Skeleton className="h-4 w-full max-w-xl" />
        </div>
        <div className="card space-y-6 p-5 sm:p-8">
          {Array.from({ length: 4 }, (_, index) => (
            <div key={index} className="space-y-2">
              <Skeleton className="h-4 w-28" />
              <Skeleton className={index === 1 ? "h-28 w-full" : "h-10 w-full"} />
            </div>
          ))}
          <div className="flex justify-end">
            <Skeleton className="h-10 w-32" />
          </div>
        </div>
      </div>
    </LoadingRegion>
  );
}
