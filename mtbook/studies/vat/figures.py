"""The variance-aware chapter's figures: each draws what a :mod:`mtbook.studies.vat.study` table holds
(matplotlib and seaborn are imported when a figure is drawn, so the study runs without them)."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from mtbook.studies.vat.study import (EVAL_METRICS, FILTER_METRICS, STAT_LABELS, STATS, Direction, kept_sets,
                                      mean_recall_and_kept)

__all__ = ["plot_lambda_sweep", "plot_lambda_groups", "plot_filter_metrics", "plot_share_change", "plot_kept_difficulty", "plot_random_percentiles"]


def plot_lambda_sweep(ax, sweep: pd.DataFrame, drop_percent: float, metrics: Sequence[str] = tuple(EVAL_METRICS),
                      *, label_random: bool = True) -> None:
    """Mean r against λ per metric: solid VAT, dashed random subsets; a grey line at ``drop_percent``."""
    for k, m in enumerate(metrics):
        d = sweep[sweep.metric == m].groupby("lam")[["vat", "random"]].mean()
        ax.plot(d.index, d["vat"], marker="o", color=f"C{k}", label=f"{m}, VAT" if label_random else m)
        ax.plot(d.index, d["random"], ls="--", color=f"C{k}", **({"label": f"{m}, random"} if label_random else {}))
    ax.axvline(drop_percent, color="0.6", lw=1)
    ax.set(xlabel="λ (percent of segments dropped)" if label_random else "λ", ylabel="mean Pearson r")


def plot_lambda_groups(sweep: pd.DataFrame, drop_percent: float, metrics: Sequence[str] = tuple(EVAL_METRICS)):
    """:func:`plot_lambda_sweep` for to-English and from-English directions, one above the other
    (narrow enough for the page's column; None when the sweep has neither)."""
    import matplotlib.pyplot as plt
    groups = [g for g in ["to English", "from English"] if g in set(sweep.get("group", []))]
    if not groups:
        return None
    fig, axes = plt.subplots(len(groups), 1, figsize=(7.5, 3.4 * len(groups)), sharey=True, squeeze=False)
    for ax, g in zip(axes[:, 0], groups):
        plot_lambda_sweep(ax, sweep[sweep.group == g], drop_percent, metrics, label_random=False)
        ax.set(title=f"{g} ({sweep[sweep.group == g].lp.nunique()} directions)")
    axes[0, 0].legend(fontsize=9)
    fig.tight_layout()
    return fig


def plot_filter_metrics(fig4: pd.DataFrame, filter_metrics: Sequence[str] = tuple(FILTER_METRICS),
                        metrics: Sequence[str] = tuple(EVAL_METRICS), stats: Sequence[str] = tuple(STATS)):
    """Figure 4 as changes: one panel per statistic (one above the other), the evaluating metrics on x, one bar per
    filtering metric, each bar the mean correlation on the kept set minus that on the whole set
    (bars start at 0, so a difference of 0.01 looks like one)."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    d = fig4.groupby(["stat", "metric", "filter"])["value"].mean().unstack("filter")
    d = d[list(filter_metrics)].sub(d["none (whole set)"], axis=0).stack().rename("change").reset_index()
    fig, axes = plt.subplots(len(stats), 1, figsize=(7.5, 3.0 * len(stats)), squeeze=False, sharey=True)
    axes = axes[:, 0]
    for ax, stat in zip(axes, stats):
        sns.barplot(d[d.stat == stat], x="metric", y="change", hue="filter", hue_order=list(filter_metrics),
                    order=list(metrics), ax=ax)
        ax.axhline(0, color="0.3", lw=0.8)
        ax.set(xlabel="evaluating metric", ylabel="change (kept − whole)",
               title=STAT_LABELS[stat])
        ax.legend_.remove()
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, title="filtered by", fontsize=9, loc="lower center", ncol=min(len(labels), 5))
    fig.tight_layout(rect=(0, 0.65 / (3.0 * len(stats)), 1, 1))  # room below for the legend
    return fig


def plot_share_change(df: pd.DataFrame, title: str, xlabel: str = "group", figsize=(7, 3.6)):
    """Bars of :func:`share_changes`: one colour per (evaluation set, kept set); ``xlabel`` names
    the groups on the x axis."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    fig, ax = plt.subplots(figsize=figsize)
    df = df.assign(label=df.evalset + ", " + df.subset.str.replace("VAT (", "").str.rstrip(")") + " VAT")
    sns.barplot(df, x="group", y="change (pp)", hue="label", ax=ax)
    ax.axhline(0, color="0.3", lw=0.8)
    ax.set(title=title, xlabel=xlabel, ylabel="kept − all (percentage points)")
    ax.legend(fontsize=9)
    return fig


def plot_kept_difficulty(R: Mapping[str, Direction], keys: Sequence[str]):
    """Histograms of the mean BERTS-R over systems (our encoder's), kept against filtered-out
    segments: one row per set, our VAT on the left and the released VAT beside it where it was
    released."""
    import matplotlib.pyplot as plt
    panels = [(key, subset) for key in keys for subset in kept_sets(R[key])]
    cols = max((len(kept_sets(R[key])) for key in keys), default=1)  # ours and released side by side
    rows = len(keys)
    fig, axes = plt.subplots(rows, cols, figsize=(7.5, 3.2 * rows), squeeze=False)
    for ax in axes.flat:
        ax.set_visible(False)
    for i, key in enumerate(keys):
        mean_r = mean_recall_and_kept(R[key])[0]
        bins = np.linspace(mean_r.min(), mean_r.max(), 30)
        for j, subset in enumerate(kept_sets(R[key])):
            ax = axes[i, j]
            ax.set_visible(True)
            kept = mean_recall_and_kept(R[key], subset)[1]
            ax.hist(mean_r[~kept], bins=bins, alpha=0.6, label="filtered out", density=True)
            ax.hist(mean_r[kept], bins=bins, alpha=0.6, label="kept", density=True)
            name = "our" if subset == "VAT (ours)" else "released"
            ax.set(title=f"{key}, {name} VAT" if (key, "VAT (released)") in panels else key,
                   xlabel="mean BERTS-R over systems", ylabel="density")
            ax.legend(fontsize=9)
    plt.tight_layout()
    return fig


def plot_random_percentiles(rand: pd.DataFrame, metrics: Sequence[str] = tuple(EVAL_METRICS)):
    """Percentile of each kept set among random subsets of its size, per metric: Pearson above,
    Kendall below."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    fig, axes = plt.subplots(2, 1, figsize=(7.5, 6.8), sharey=True, sharex=True)
    for ax, method in zip(axes, ["pearson", "kendall"]):
        d = rand[rand.method == method]
        sns.stripplot(d, x="metric", y="percentile", hue="subset", dodge=True, ax=ax, order=list(metrics), size=4,
                      alpha=0.8)
        ax.axhline(50, color="0.4", lw=1, ls="--")
        ax.set(title="Pearson r" if method == "pearson" else "Kendall τ", xlabel="evaluating metric",
               ylabel="percentile", ylim=(-3, 103))
    handles, labels = axes[0].get_legend_handles_labels()
    for ax in axes:
        ax.legend_.remove()
    # below the panels: inside, the legend would hide points at 0 or 100
    fig.legend(handles, labels, fontsize=9, title="kept set", loc="lower center", ncol=max(1, len(labels)))
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    return fig
