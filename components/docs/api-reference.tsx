"use client";

import dynamic from "next/dynamic";
import "swagger-ui-react/swagger-ui.css";

// Swagger UI is large: it loads only on this page, after the page itself.
const SwaggerUI = dynamic(() => import("swagger-ui-react"), {
  ssr: false,
  loading: () => <p className="text-sm text-slate-500">Loading the API reference…</p>,
});

export function ApiReference({ spec }: { spec: object }) {
  return (
    <div className="api-reference rounded-lg bg-white p-2 text-slate-900">
      <SwaggerUI
        spec={spec}
        docExpansion="list"
        defaultModelsExpandDepth={0}
        tryItOutEnabled={false}
        supportedSubmitMethods={[]}
      />
    </div>
  );
}
