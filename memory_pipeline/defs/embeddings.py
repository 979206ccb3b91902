"""The `meaning` stage: every fact the agent may see put into the space recall by meaning searches,
and `embedding_coverage` holding the store to it."""

import dagster as dg

from memory_pipeline import environment
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.privacy import privacy_tags
from memory_pipeline.defs.resources import FactStoreResource, HermesHomeResource
from memory_pipeline.lib.extraction.embedders import EmbedderChoice, EmbedderUnavailable
from memory_pipeline.lib.in_hermes.meaning import OFF_MODEL
from memory_pipeline.lib.sync.embedding import Progress, embed_facts, unembedded, watcher
from memory_pipeline.runs.stage_reports import EmbeddingsReport


class EmbedderResource(dg.ConfigurableResource):
    """What puts facts into the space recall by meaning searches.

    `embedder`: `bundled` (the multilingual sentence encoder inside the package: offline, nothing
    to set up), `ollama:MODEL` (a local Ollama's `/api/embed`, e.g. `ollama:bge-m3`; a host off this
    machine is refused as for extraction) or `off` (recall by letters alone). Empty means
    `$MEMORY_PIPELINE_EMBEDDER`, else the model the store's vectors were made with, else `bundled`.
    A change of model re-embeds every fact and stays for later runs (a backfill of
    `fact_embeddings` over every profile does all of them at once).
    """

    embedder: str = ""
    ollama_host: str = ""

    def choice(self, in_force: str | None = None) -> EmbedderChoice:
        try:
            return EmbedderChoice.parse(
                environment.embedder(self.embedder or None, in_force),
                environment.ollama_host(self.ollama_host or None),
                allow_remote=self.remote_allowed(),
            )
        except EmbedderUnavailable as exc:
            raise dg.Failure(description=str(exc)) from None

    def remote_allowed(self) -> bool:
        """As for extraction: the environment the process was started with decides, never a run's config."""
        return environment.remote_ollama_allowed()


class RemoteAllowedEmbedderResource(EmbedderResource):
    """The embedder of a sync whose command was given `--allow-remote-ollama` (see `RemoteAllowedExtractorResource`)."""

    def remote_allowed(self) -> bool:
        return True


@dg.asset(
    partitions_def=hermes_profiles,
    group_name="meaning",
    kinds={"sqlite", "numpy"},
    deps=[privacy_tags],
)
def fact_embeddings(
    context: dg.AssetExecutionContext, hermes: HermesHomeResource, store: FactStoreResource, embedder: EmbedderResource
) -> dg.MaterializeResult:
    """Each fact the agent may see, as a sentence vector of the model in force (the multilingual
    encoder bundled with the package unless another is chosen), so a question in one language finds a
    fact written in another and a paraphrase finds what it means. Only facts new or changed since
    their vector are embedded; a fact that is private, unsafe, removed or not judged for its text has
    no vector (its vector is deleted with the verdict that withholds it). A change of model re-embeds
    every fact, switching over in one transaction. Metadata: facts embedded, seconds, facts per
    second, the model; never a vector or a text."""
    here = hermes.context(context.partition_key)
    with store.opened(store.settings(here), here.owner) as fact_store:
        in_force = fact_store.reads.embedding_model()
        choice = embedder.choice(in_force)
        try:
            report = embed_facts(fact_store, choice, _progress(context, choice.name))
        except EmbedderUnavailable as exc:
            if (choice.name or OFF_MODEL) != in_force:
                raise dg.Failure(description=str(exc)) from None  # a model asked for now: the one asking hears why
            # The model in force is down (Ollama stopped): its vectors stay, new facts wait for it.
            context.log.warning(f"{exc}; the facts without a vector are found by letters until then")
            report = unembedded(fact_store, choice)
    return dg.MaterializeResult(
        metadata={
            **EmbeddingsReport(model=report.model, embedded=report.embedded).metadata(),
            "seconds": float(report.seconds),
            "facts_per_second": float(report.facts_per_second),
            "shown_facts": float(report.shown),
            "missing_vectors": float(report.missing),
            "vectors_dropped": float(report.dropped),
        }
    )


def _progress(context: dg.AssetExecutionContext, model: str) -> Progress:
    """Each tenth of a long embedding in the run's log (the UI), every batch to a watching terminal."""
    told = [0]
    terminal = watcher()

    def progress(done: int, total: int) -> None:
        if terminal is not None:
            terminal(done, total)
        if total >= 500 and (done == total or done * 10 // total > told[0]):
            told[0] = done * 10 // total
            context.log.info(f"{model}: {done} of {total} facts embedded")

    return progress
