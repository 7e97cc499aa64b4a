{{/* Name of one service's objects: <release>-<service>. */}}
{{- define "tollgate.name" -}}
{{- printf "%s-%s" .root.Release.Name .service | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels every object carries; selectors use the two stable ones. */}}
{{- define "tollgate.labels" -}}
app.kubernetes.io/name: tollgate
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{- define "tollgate.selector" -}}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .service }}
{{- end -}}

{{/* The variable that holds a service's gRPC address, e.g. TOLLGATE_AUTH_CALLOUT_GRPC_ADDR. */}}
{{- define "tollgate.grpcEnv" -}}
{{- printf "TOLLGATE_%s_GRPC_ADDR" (. | upper | replace "-" "_") -}}
{{- end -}}
