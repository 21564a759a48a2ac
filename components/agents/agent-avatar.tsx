const COLORS = [
  "from-indigo-500 to-violet-600",
  "from-sky-500 to-cyan-600",
  "from-emerald-500 to-teal-600",
  "from-amber-500 to-orange-600",
  "from-rose-500 to-pink-600",
  "from-fuchsia-500 to-purple-600",
];

/** A monogram in a colour picked from the agent id: no images, nothing fetched. */
export function AgentAvatar({
  id,
  name,
  size = "md",
}: {
  id: string;
  name: string;
  size?: "md" | "lg";
}) {
  let hash = 0;
  for (const char of id) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  const color = COLORS[hash % COLORS.length];
  const initial = (name.trim().charAt(0) || "?").toUpperCase();
  return (
    <span
      aria-hidden="true"
      className={`grid shrink-0 place-items-center rounded-xl bg-gradient-to-br font-bold text-white shadow-sm ${color} ${
        size === "lg" ? "size-16 text-2xl" : "size-10 text-base"
      }`}
    >
      {initial}
    </span>
  );
}
