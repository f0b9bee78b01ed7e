"""The admin's launch form for LLM baseline runs (the training-run launch form's sibling)."""
from __future__ import annotations

import re

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.models import Release

from .models import Backend, PromptTemplate

SHOTS = ((0, _("0 (zero-shot, Table 3)")), (1, "1"), (5, "5"), (10, "10"))
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class LaunchForm(forms.Form):
    release = forms.ModelChoiceField(Release.objects.order_by("-number"), label=_("Release"),
                                     help_text=_("Scored on its test split; few-shot examples come from its training "
                                                 "split only."))
    backend = forms.ChoiceField(choices=Backend.choices, initial=Backend.OPENAI, label=_("Backend"))
    endpoint = forms.CharField(
        max_length=500, initial="http://127.0.0.1:8080/v1", label=_("Endpoint"),
        help_text=_("OpenAI-compatible: the base URL an OpenAI client takes (vLLM, llama.cpp's server, Ollama: "
                    "http://127.0.0.1:11434/v1, DeepSeek, OpenAI). Local backend: the checkpoint directory under "
                    "/models. An endpoint off this machine must be listed in LLM_ENDPOINT_ALLOWLIST."))
    model_name = forms.CharField(max_length=200, label=_("Model"),
                                 help_text=_("The model name the endpoint serves, e.g. qwen3-max or deepseek-chat."))
    template = forms.ModelChoiceField(PromptTemplate.objects.order_by("name", "-version"), required=False,
                                      label=_("Prompt template"), empty_label=_("The paper's prompt (newest version)"),
                                      help_text=_("Every run records the exact template text it sent."))
    shots = forms.TypedChoiceField(choices=SHOTS, coerce=int, initial=0, label=_("Shots (K)"))
    runs = forms.IntegerField(initial=5, min_value=1, max_value=20, label=_("Runs (R)"),
                              help_text=_("The paper: five runs, reported as mean ± std."))
    seed = forms.IntegerField(initial=0, label=_("Seed"))
    temperature = forms.FloatField(initial=0.0, min_value=0.0, max_value=2.0, label=_("Temperature"))
    api_key_env = forms.CharField(
        max_length=100, required=False, label=_("API key environment variable"),
        help_text=_("The NAME of the environment variable that holds the key on the worker (e.g. DEEPSEEK_API_KEY); "
                    "the key itself is never stored. Empty for a local server that needs none."))

    def clean_endpoint(self) -> str:
        return self.cleaned_data["endpoint"].strip()

    def clean_model_name(self) -> str:
        name = self.cleaned_data["model_name"].strip()
        if not name:
            raise forms.ValidationError(_("Give the model's name."))
        return name

    def clean_api_key_env(self) -> str:
        name = self.cleaned_data["api_key_env"].strip()
        if name and not ENV_NAME.match(name):
            raise forms.ValidationError(_("Give the NAME of an environment variable (letters, digits and _), "
                                          "never the key itself."))
        return name

    def launch_arguments(self) -> dict:
        c = self.cleaned_data
        return {"release_id": c["release"].pk, "endpoint": c["endpoint"], "model_name": c["model_name"],
                "backend": c["backend"], "shots": c["shots"], "runs": c["runs"], "seed": c["seed"],
                "temperature": c["temperature"], "api_key_env": c["api_key_env"],
                "template_id": c["template"].pk if c["template"] else None}
