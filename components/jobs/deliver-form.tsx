"use client";

import { useRouter } from "next/navigation";
import { type ChangeEvent, type FormEvent, useId, useRef, useState } from "react";
import { formatBytes } from "@/lib/shared/format";
import { api, callApi } from "@/components/api-client";
import { FormError, Spinner } from "@/components/forms/fields";
import { useHydrated } from "@/components/forms/use-hydrated";
import { DELIVER_BODY_LIMIT } from "@/lib/shared/body-limits";
import { LIMITS } from "@/lib/shared/limits";
import { describeIssues } from "@/lib/shared/schemas/common";
import { type AttachmentInput, deliverSchema } from "@/lib/shared/schemas/jobs";

/** The server refuses deliver bodies over 16 MiB: 10 MiB of files fit once base64-encoded. */
const MAX_BODY_BYTES = DELIVER_BODY_LIMIT;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/;

/** Checks the chosen files against the limits; returns a readable problem or null. */
export function checkFiles(files: File[]): string | null {
  if (files.length > LIMITS.attachments) {
    return `You can attach at most ${LIMITS.attachments} files (you chose ${files.length}).`;
  }
  const tooBig = files.find((file) => file.size > LIMITS.attachmentBytes);
  if (tooBig)
    return `“${tooBig.name}” is ${formatBytes(tooBig.size)}; each file may be at most 5 MB.`;
  const total = files.reduce((sum, file) => sum + file.size, 0);
  if (total > LIMITS.attachmentsTotalBytes) {
    return `These files add up to ${formatBytes(total)}; a delivery may be at most 10 MB in total.`;
  }
  return null;
}

function safeName(name: string): string {
  const cleaned = name
    .replace(/[\\/]/g, "_")
    .replace(/[\u0000-\u001F\u007F]/g, "")
    .trim();
  return (cleaned || "file").slice(0, LIMITS.attachmentName);
}

function mediaType(file: File): string {
  const type = file.type.split(";")[0]?.trim().toLowerCase() ?? "";
  return MEDIA_TYPE.test(type) ? type : "application/octet-stream";
}

async function toAttachment(file: File): Promise<AttachmentInput> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  }
  const type = mediaType(file);
  return {
    name: safeName(file.name),
    size: bytes.length,
    type,
    dataUrl: `data:${type};base64,${btoa(binary)}`,
  };
}

export function DeliverForm({ jobId }: { jobId: string }) {
  const router = useRouter();
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [files, setFiles] = useState<File[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [serverError, setServerError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const hydrated = useHydrated();

  function onChoose(event: ChangeEvent<HTMLInputElement>) {
    const chosen = [...files, ...Array.from(event.target.files ?? [])];
    event.target.value = "";
    setFiles(chosen);
    setProblem(checkFiles(chosen));
  }

  function remove(index: number) {
    const next = files.filter((_, position) => position !== index);
    setFiles(next);
    setProblem(checkFiles(next));
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setServerError(null);
    const limitProblem = checkFiles(files);
    if (limitProblem) {
      setProblem(limitProblem);
      inputRef.current?.focus();
      return;
    }
    setPending(true);
    try {
      const attachments = await Promise.all(files.map(toAttachment));
      const parsed = deliverSchema.safeParse({ attachments });
      if (!parsed.success) throw new Error(describeIssues(parsed.error));
      const body = JSON.stringify(parsed.data);
      if (new TextEncoder().encode(body).byteLength > MAX_BODY_BYTES) {
        throw new Error(
          `Encoded for upload these files take ${formatBytes(body.length)}, more than the server accepts in one delivery (${formatBytes(MAX_BODY_BYTES)}). Remove a file or compress them.`,
        );
      }
      const result = await callApi(
        api.POST("/api/v1/jobs/{id}/deliver", {
          params: { path: { id: jobId } },
          body: parsed.data,
        }),
      );
      if (!result.ok) throw new Error(result.error);
      router.refresh();
    } catch (error) {
      setServerError(error instanceof Error ? error.message : String(error));
      setPending(false);
    }
  }

  const total = files.reduce((sum, file) => sum + file.size, 0);
  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label="Deliver the work">
      <FormError message={serverError} />
      <div>
        <label htmlFor={inputId} className="field-label">
          Attach files{" "}
          <span className="font-normal text-slate-500 dark:text-slate-400">(optional)</span>
        </label>
        <input
          ref={inputRef}
          id={inputId}
          type="file"
          multiple
          onChange={onChoose}
          // Files chosen before hydration would never reach the list (see useHydrated).
          disabled={!hydrated}
          aria-describedby={`${inputId}-hint${problem ? ` ${inputId}-error` : ""}`}
          aria-invalid={problem ? true : undefined}
          className="mt-1 block w-full text-sm text-slate-700 file:mr-3 file:rounded-lg file:border-0 file:bg-indigo-50 file:px-4 file:py-2 file:text-sm file:font-semibold file:text-indigo-700 hover:file:bg-indigo-100 dark:text-slate-300 dark:file:bg-indigo-950 dark:file:text-indigo-200"
        />
        <p id={`${inputId}-hint`} className="field-hint">
          Up to {LIMITS.attachments} files, 5 MB each, 10 MB in total. Only the poster and your
          agent can download them.
        </p>
        {problem ? (
          <p id={`${inputId}-error`} role="alert" className="field-error">
            {problem}
          </p>
        ) : null}
      </div>
      {files.length > 0 ? (
        <ul
          className="divide-y divide-slate-200 rounded-lg border border-slate-200 text-sm dark:divide-slate-800 dark:border-slate-800"
          aria-label="Files to deliver"
        >
          {files.map((file, index) => (
            <li
              key={`${file.name}-${index}`}
              className="flex items-center justify-between gap-3 px-3 py-2"
            >
              <span className="min-w-0 truncate">{file.name}</span>
              <span className="flex shrink-0 items-center gap-2 text-xs text-slate-500">
                {formatBytes(file.size)}
                <button
                  type="button"
                  className="btn btn-sm btn-ghost"
                  onClick={() => remove(index)}
                  aria-label={`Remove ${file.name}`}
                >
                  Remove
                </button>
              </span>
            </li>
          ))}
          <li className="px-3 py-2 text-xs text-slate-500">
            {files.length} file{files.length === 1 ? "" : "s"}, {formatBytes(total)} in total
          </li>
        </ul>
      ) : null}
      <div className="flex justify-end">
        <button
          type="submit"
          className="btn btn-primary"
          disabled={pending || !hydrated || Boolean(problem)}
        >
          {pending ? <Spinner /> : null}
          {pending ? "Delivering…" : "Mark as delivered"}
        </button>
      </div>
    </form>
  );
}
