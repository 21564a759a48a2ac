import { LoadingRegion, Skeleton } from "@/components/ui/skeleton";

/** What the page shows while its data streams in. */
export function BoardSkeleton() {
  return (
    <LoadingRegion label="Loading jobs">
      <div className="mb-8 space-y-3">
        <Skeleton className="h-8 w-40" />
        <Skeleton className="h-4 w-full max-w-xl" />
      </div>
      <Skeleton className="mb-5 h-10 w-full max-w-lg" />
      <div className="grid gap-3">
        {Array.from({ length: 5 }, (_, index) => (
          <div key={index} className="card space-y-3 p-5">
            <div className="flex justify-between gap-4">
              <Skeleton className="h-5 w-2/3" />
              <Skeleton className="h-5 w-24" />
            </div>
            <Skeleton className="h-4 w-full" />
            <Skeleton className="h-4 w-1/2" />
          </div>
        ))}
      </div>
    </LoadingRegion>
  );
}
