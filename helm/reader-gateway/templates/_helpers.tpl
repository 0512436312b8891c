{{/* The chart name, truncated to a DNS label. */}}
{{- define "reader-gateway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The full name used as the prefix of every resource. */}}
{{- define "reader-gateway.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "reader-gateway.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every resource. */}}
{{- define "reader-gateway.labels" -}}
helm.sh/chart: {{ include "reader-gateway.chart" . }}
{{ include "reader-gateway.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels that select the pods. */}}
{{- define "reader-gateway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "reader-gateway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "reader-gateway.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "reader-gateway.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "reader-gateway.databaseSecret" -}}
{{- default (printf "%s-database" (include "reader-gateway.fullname" .)) .Values.database.existingSecret }}
{{- end }}

{{- define "reader-gateway.tlsSecret" -}}
{{- default (printf "%s-tls" (include "reader-gateway.fullname" .)) .Values.tls.existingSecret }}
{{- end }}

{{- define "reader-gateway.readerCASecret" -}}
{{- default (printf "%s-reader-ca" (include "reader-gateway.fullname" .)) .Values.readerCA.existingSecret }}
{{- end }}

{{/*
The grace period: preStop sleep + load balancer window + in-flight deadline
+ margin, or the explicit value, which must not be shorter.
*/}}
{{- define "reader-gateway.terminationGracePeriodSeconds" -}}
{{- $d := .Values.drain }}
{{- $needed := add $d.preStopSeconds $d.loadBalancerWindowSeconds $d.inFlightDeadlineSeconds $d.marginSeconds }}
{{- if gt (int $d.terminationGracePeriodSeconds) 0 }}
{{- if lt (int $d.terminationGracePeriodSeconds) (int $needed) }}
{{- fail (printf "drain.terminationGracePeriodSeconds (%d) is shorter than the drain needs (preStop %d + load balancer window %d + in-flight deadline %d + margin %d = %d): raise it or shorten the drain" (int $d.terminationGracePeriodSeconds) (int $d.preStopSeconds) (int $d.loadBalancerWindowSeconds) (int $d.inFlightDeadlineSeconds) (int $d.marginSeconds) (int $needed)) }}
{{- end }}
{{- $d.terminationGracePeriodSeconds }}
{{- else }}
{{- $needed }}
{{- end }}
{{- end }}

{{/*
The internal (replica-to-replica) port, refused when it collides with the
TLS or ops port.
*/}}
{{- define "reader-gateway.internalPort" -}}
{{- $p := .Values.ports }}
{{- if or (eq (int $p.internal) (int $p.tls)) (eq (int $p.internal) (int $p.ops)) (eq (int $p.tls) (int $p.ops)) }}
{{- fail (printf "ports.tls (%d), ports.ops (%d) and ports.internal (%d) must be three different ports" (int $p.tls) (int $p.ops) (int $p.internal)) }}
{{- end }}
{{- $p.internal }}
{{- end }}

{{/*
The volume source of the webhook receivers' CA bundle (webhooks.caBundle): a
Secret or a ConfigMap, empty when neither is named; both is refused.
*/}}
{{- define "reader-gateway.webhookCAVolume" -}}
{{- $b := .Values.webhooks.caBundle }}
{{- if and $b.secret $b.configMap }}
{{- fail (printf "webhooks.caBundle names both a Secret (%s) and a ConfigMap (%s): give one of them" $b.secret $b.configMap) }}
{{- else if $b.secret }}
secret:
  secretName: {{ $b.secret }}
  defaultMode: 0440
{{- else if $b.configMap }}
configMap:
  name: {{ $b.configMap }}
  defaultMode: 0440
{{- end }}
{{- end }}
