/**
 * Example answers of the data operations, as /openapi.json shows them: real answers from the default
 * synthetic network (PRONET_SEED=small) as built on 2 November 2026, with long lists shortened (the
 * names and slugs are those of every such network; post ids and dates follow the day it is built).
 * Typed by the contract, and checked against its schemas by the tests, so an example cannot drift
 * from what the API sends. Long because it is data: one whole answer per operation, kept together so
 * they are edited side by side.
 */
import type { Static } from 'typebox'
import type {
  CommentsResponse,
  CompanyBatchResponse,
  CompanyPostsResponse,
  CompanyResponse,
  EngagementResponse,
  PostReactionsResponse,
  PostsResponse,
  PostsUpdatesResponse,
  ProfileArticlesResponse,
  ProfileReactionsResponse,
  ProfileResponse,
  SearchPostsResponse,
} from '../endpoints.schemas.ts'

export const getProfile: Static<typeof ProfileResponse> = {
  id: 'urn:li:fsd_profile:ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt',
  profileId: 'ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt',
  memberId: '1908103877',
  publicIdentifier: 'hui-min-lee-175acd',
  url: 'https://www.linkedin.com/in/hui-min-lee-175acd',
  firstName: 'Hui Min',
  lastName: 'Lee',
  title: 'Chief Marketing Officer at Studio Design | Startups creator | Newsletter: Responsible AI',
  description: 'Chief Marketing Officer with 21+ years of experience in marketing, lately focused on retrieval-augmented generation. A recent highlight: Ran demand generation for the enterprise segment. Outside work: jazz piano.',
  location: 'Singapore, Singapore',
  geoLocationName: 'Singapore',
  geoCountryName: 'Singapore',
  countryCode: 'SG',
  geoUrn: 'urn:li:fsd_geo:111007952',
  profilePictureUrl: 'https://media.linkedin.com/dms/image/v2/sLM5w40K5GHKm7F/profile-displayphoto-shrink_800_800/0/1703923200000?e=1798790400&v=beta&t=58VqvHqtEdlqpNd4qE4xhPaC53ImS2kk81NLGypMmsr',
  coverImageUrl: '',
  connectionType: 'OUT_OF_NETWORK',
  creatorInfo: {
    hashTags: ['#entrepreneurship', '#genai', '#ai'],
    website: '',
  },
  jobTitle: '',
  companyName: '',
  companyPublicId: '',
  companyLinkedinUrl: '',
  currentPosition: null,
  currentSchool: null,
  followerCount: 9435,
  connectionsCount: 1291,
  creator: true,
  influencer: false,
  premium: false,
  isVerified: false,
  openToWork: false,
  inRemembrance: false,
  openProfile: false,
  joinDate: {
    month: 5,
    year: 2010,
  },
  experiences: [
    {
      name: 'Studio Design',
      jobTitle: 'Chief Marketing Officer',
      description: '',
      dateRange: 'Apr 2024 - Present',
      current: false,
      ongoing: true,
      totalDuration: '2 yrs 8 mos',
      positionUrn: 'urn:li:fsd_profilePosition:(ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt,2219306204)',
      timePeriod: {
        startDate: {
          year: 2024,
          month: 4,
        },
        endDate: null,
      },
      company: {
        url: 'https://www.linkedin.com/company/studio-design/',
        name: 'Studio Design',
        logo: 'https://media.linkedin.com/dms/image/v2/KoQ5RB3o8gzk6mh/company-logo_200_200/0/1626940800000?e=1798790400&v=beta&t=kpCfzlPt2MJ_udpXyx4puzPXra_uuT1KRIoEQUgfNOK',
        companyId: '20009571',
        urn: 'urn:li:fsd_company:20009571',
      },
    },
    {
      name: 'Cardinal Ventures',
      jobTitle: 'VP of Marketing',
      description: '',
      dateRange: 'Oct 2022 - Apr 2024',
      current: false,
      ongoing: false,
      totalDuration: '1 yr 7 mos',
      positionUrn: 'urn:li:fsd_profilePosition:(ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt,2248355957)',
      timePeriod: {
        startDate: {
          year: 2022,
          month: 10,
        },
        endDate: {
          year: 2024,
          month: 4,
        },
      },
      company: {
        url: 'https://www.linkedin.com/company/cardinal-ventures/',
        name: 'Cardinal Ventures',
        logo: 'https://media.linkedin.com/dms/image/v2/ngkqPBcPsLmsQDv/company-logo_200_200/0/1688976000000?e=1798790400&v=beta&t=FLQKskbZqNgS4q_8OVd1bo-bD7rhJr9IgdKr_wv4ukW',
        companyId: '59071065',
        urn: 'urn:li:fsd_company:59071065',
      },
    },
  ],
  educations: [
    {
      name: 'Chicago State University',
      description: 'Master of Science - MS, Marketing',
      dateRange: 'Sep 2008 - Jun 2009',
      current: false,
      educationUrn: 'urn:li:fsd_profileEducation:(ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt,1740078392)',
      grade: '',
      details: '',
      schoolLogo: null,
      schoolUrl: 'https://www.linkedin.com/school/chicago-state-university/',
      timePeriod: {
        startDate: {
          year: 2008,
          month: 9,
        },
        endDate: {
          year: 2009,
          month: 6,
        },
      },
    },
    {
      name: 'University of New York',
      description: 'Bachelor of Science - BS, Marketing',
      dateRange: 'Sep 2002 - Jun 2005',
      current: false,
      educationUrn: 'urn:li:fsd_profileEducation:(ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt,2414018570)',
      grade: 'Magna Cum Laude',
      details: '',
      schoolLogo: 'https://media.linkedin.com/dms/image/v2/92SqHxLfAmHlY1D/company-logo_200_200/0/1626163200000?e=1798790400&v=beta&t=m_N3dKxA5JKgwAlIWx_ffZs77C_urCjd6lxRUhcpTT6',
      schoolUrl: 'https://www.linkedin.com/school/university-of-new-york/',
      timePeriod: {
        startDate: {
          year: 2002,
          month: 9,
        },
        endDate: {
          year: 2005,
          month: 6,
        },
      },
    },
  ],
  skills: [
    {
      name: 'Brand Management',
      endorsementCount: 92,
    },
    {
      name: 'Digital Marketing',
      endorsementCount: 79,
    },
    {
      name: 'Demand Generation',
      endorsementCount: 35,
    },
  ],
  languages: [
    {
      name: 'Cantonese',
      proficiency: 'Native or bilingual proficiency',
    },
    {
      name: 'English',
      proficiency: 'Native or bilingual proficiency',
    },
  ],
  certifications: [],
  testScores: [],
  volunteerCauses: [],
  hiring: false,
  industry: 'Design Services',
  industryUrn: 'urn:li:fsd_industry:99',
  primaryLocale: {
    country: 'SG',
    language: 'en',
  },
  publications: [],
  projects: [],
  honors: [],
  courses: [],
  organizations: [],
  patents: [],
  volunteerExperiences: [],
  recommendationsGiven: [
    {
      caption: "November 25, 2020, Hui Min Lee was senior to Léa but didn't manage Léa directly",
      description: 'I had the pleasure of working with Léa for almost three years. Léa combines sharp judgement with real kindness, and turned a struggling project into one of our biggest wins.',
      recipientFullname: 'Léa Leroy',
      recipientUrl: 'https://www.linkedin.com/in/lea-leroy-1543fa',
    },
  ],
}

export const getProfileReactions: Static<typeof ProfileReactionsResponse> = {
  reactions: [
    {
      reactionType: 'PRAISE',
      post: {
        id: 'urn:li:activity:7521917469431685381',
        shareUrn: 'urn:li:ugcPost:7521917469434443639',
        content: 'Worth a read: Customer interviews: what we learned\n\nThe roadmap is a communication tool, not a promise. Would love your feedback.\n\nhttps://onyxsecurity.com/blog/customer-interviews\n\n#productmanagement',
        date: '2026-10-30T12:54:35.181Z',
        reactionCount: 5,
        commentCount: 7,
        sharesCount: 0,
        imageUrl: 'https://media.linkedin.com/dms/image/v2/qexj4HmyIsNG68g/article-cover_image-shrink_627_1200/0/1793364875181?e=1798790400&v=beta&t=1dzmPvanOUhZVz0K114iCMFtAPMojID8HWg4UhuToxV',
        videoUrl: null,
        carouselPdfUrl: null,
        profile: {
          urn: 'urn:li:fsd_profile:ACoAAj3lA538wpqSgXHRM56JoNBklT2PlplIJ3J',
          name: 'Divya Desai',
          headline: 'Principal Engineer at Onyx Security',
          url: 'https://www.linkedin.com/in/divya-desai-040aced',
          imageUrl: 'https://media.linkedin.com/dms/image/v2/QyRxuwUM1PJj0Hp/profile-displayphoto-shrink_800_800/0/1769673600000?e=1798790400&v=beta&t=nlpUaRuJmHcUCq0OHCpaGDd43Jleng3gLFwqLGn7TaT',
        },
        reactionsByType: {
          like: 2,
          interest: 2,
          praise: 1,
        },
        shareUrl: 'https://www.linkedin.com/feed/update/urn:li:activity:7521917469431685381/',
      },
    },
  ],
  paginationToken: 'eyJzIjoibTJoZ2V5cjNISDRxdU1HYSIsInAiOlsxNzkzNDg1NjM3NTkwLCI3NTIxOTE3NDY5NDMxNjg1MzgxIl19.2nQMvcI11Tg4Y-BSSE5BGQ',
  hasMore: true,
}

export const getProfileArticles: Static<typeof ProfileArticlesResponse> = {
  articles: [
    {
      articleUrn: 'urn:li:linkedinArticle:7265239358706046425',
      articleId: '7265239358706046425',
      title: 'Rethinking LLM evaluation for the next five years',
      url: 'https://www.linkedin.com/pulse/rethinking-llm-evaluation-for-the-next-five-years-7265239358706046425/',
      description: 'Most AI projects fail on data quality long before they fail on model choice. The hard part of shipping AI is evaluation, not the model. In this…',
      publishedAt: '2024-11-21T05:47:24.735Z',
      coverImageUrl: 'https://media.linkedin.com/dms/image/v2/LfYiOmJyyfHsgPa/article-cover_image-shrink_720_1280/0/1732168044735?e=1798790400&v=beta&t=zKkcYf6chFZJxbDP-cjlS4yv0xToL1l5vwp7s8OY8U4',
      readTimeMinutes: 13,
      subtitle: 'Hui Min Lee · 13 min read',
    },
  ],
  hasMore: true,
  nextStart: 1,
}

export const getPosts: Static<typeof PostsResponse> = {
  posts: [
    {
      id: 'urn:li:activity:7522445578791679423',
      shareUrn: 'urn:li:ugcPost:7522445578792592333',
      content: 'Great perspective from Neha Kulkarni on UX research. Sharing for anyone working on this.',
      date: '2026-10-31T23:53:06.264Z',
      reactionCount: 6,
      commentCount: 3,
      sharesCount: 0,
      reactionsByType: {
        like: 4,
        interest: 2,
      },
      postType: 'text',
      shareUrl: 'https://www.linkedin.com/feed/update/urn:li:activity:7522445578791679423/',
      imageUrl: null,
      videoUrl: null,
      carouselPdfUrl: null,
      images: [],
      video: null,
      resharedPostUrn: 'urn:li:activity:7522025955696314047',
      authorType: 'Person',
      authorProfileId: 'ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt',
      profile: {
        urn: 'urn:li:fsd_profile:ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt',
        name: 'Hui Min Lee',
        headline: 'Chief Marketing Officer at Studio Design | Startups creator | Newsletter: Responsible AI',
        url: 'https://www.linkedin.com/in/hui-min-lee-175acd',
        imageUrl: 'https://media.linkedin.com/dms/image/v2/sLM5w40K5GHKm7F/profile-displayphoto-shrink_800_800/0/1703923200000?e=1798790400&v=beta&t=58VqvHqtEdlqpNd4qE4xhPaC53ImS2kk81NLGypMmsr',
      },
      permissions: {
        canReact: true,
        canPostComments: true,
        canShare: true,
        commentingDisabled: false,
        allowedCommentersScope: 'ALL',
        shareAudience: 'PUBLIC',
        isActivity: true,
        rootShare: false,
      },
    },
    {
      id: 'urn:li:activity:7521731532950190925',
      shareUrn: 'urn:li:share:7521731532951629119',
      content: "It's finally out: Studio Atlas is live!\n\nStudio Atlas brings every conversation with a customer into one timeline. We built it after talking to more than 54 customers about prompt engineering.\n\nSo proud of the team at Studio Design.",
      date: '2026-10-30T00:35:44.469Z',
      reactionCount: 1,
      commentCount: 0,
      sharesCount: 0,
      reactionsByType: {
        praise: 1,
      },
      postType: 'image',
      shareUrl: 'https://www.linkedin.com/feed/update/urn:li:activity:7521731532950190925/',
      imageUrl: 'https://media.linkedin.com/dms/image/v2/4NycmI3gcT2tYys/feedshare-shrink_2048_1536/0/1793320544469?e=1798790400&v=beta&t=HhefknM4opQn5csLVo62DQO6RvjbEcyO4hbJyGsyPJN',
      videoUrl: null,
      carouselPdfUrl: null,
      images: [
        {
          url: 'https://media.linkedin.com/dms/image/v2/4NycmI3gcT2tYys/feedshare-shrink_2048_1536/0/1793320544469?e=1798790400&v=beta&t=HhefknM4opQn5csLVo62DQO6RvjbEcyO4hbJyGsyPJN',
          width: 1080,
          height: 1080,
        },
        {
          url: 'https://media.linkedin.com/dms/image/v2/nm2FVcOkNoquxkK/feedshare-shrink_800/0/1793320544469?e=1798790400&v=beta&t=Mr-w25ZzZ4lX8sh_4bH4LkQjG9TjcnLQ35kVv-INcen',
          width: 1080,
          height: 1350,
        },
        {
          url: 'https://media.linkedin.com/dms/image/v2/oTDiZo27JI0AgBS/feedshare-shrink_800/0/1793320544469?e=1798790400&v=beta&t=ZejSq0oSvPu-cdS9FHwqI1K11si5AsBN9qGNkkzOVUX',
          width: 1080,
          height: 1080,
        },
      ],
      video: null,
      authorType: 'Person',
      authorProfileId: 'ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt',
      profile: {
        urn: 'urn:li:fsd_profile:ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt',
        name: 'Hui Min Lee',
        headline: 'Chief Marketing Officer at Studio Design | Startups creator | Newsletter: Responsible AI',
        url: 'https://www.linkedin.com/in/hui-min-lee-175acd',
        imageUrl: 'https://media.linkedin.com/dms/image/v2/sLM5w40K5GHKm7F/profile-displayphoto-shrink_800_800/0/1703923200000?e=1798790400&v=beta&t=58VqvHqtEdlqpNd4qE4xhPaC53ImS2kk81NLGypMmsr',
      },
      permissions: {
        canReact: true,
        canPostComments: true,
        canShare: true,
        commentingDisabled: false,
        allowedCommentersScope: 'ALL',
        shareAudience: 'PUBLIC',
        isActivity: true,
        rootShare: true,
      },
    },
  ],
  paginationToken: 'eyJzIjoieUxPdjQ2aU5jc2lheV9rciIsInAiOiI3NTIxNzMxNTMyOTUwMTkwOTI1In0.ABHn9NNkh_eced2HK4Eu_Q',
  hasMore: true,
  pageSize: 2,
}

export const getPostsUpdates: Static<typeof PostsUpdatesResponse> = {
  posts: [
    {
      id: 'urn:li:activity:7522445578791679423',
      content: 'Great perspective from Neha Kulkarni on UX research. Sharing for anyone working on this.',
      date: '2026-10-31T23:53:06.264Z',
      reactionCount: 6,
      commentCount: 3,
      imageUrl: null,
      videoUrl: null,
      carouselPdfUrl: null,
      profile: {
        urn: 'urn:li:fsd_profile:ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt',
        name: 'Hui Min Lee',
        headline: 'Chief Marketing Officer at Studio Design | Startups creator | Newsletter: Responsible AI',
        url: 'https://www.linkedin.com/in/hui-min-lee-175acd',
        imageUrl: 'https://media.linkedin.com/dms/image/v2/sLM5w40K5GHKm7F/profile-displayphoto-shrink_800_800/0/1703923200000?e=1798790400&v=beta&t=58VqvHqtEdlqpNd4qE4xhPaC53ImS2kk81NLGypMmsr',
      },
    },
    {
      id: 'urn:li:activity:7521046938438395413',
      content: 'I changed my mind about this recently: attribution models are opinions with spreadsheets attached.\n\nIt sounds obvious written down. In practice it is the first thing to go when deadlines get tight, and B2B storytelling is where it hurts most.\n\nWhat is the best B2B campaign you have seen this year?\n\n#contentmarketing #b2bmarketing #branding',
      date: '2026-10-28T03:15:24.418Z',
      reactionCount: 5,
      commentCount: 1,
      imageUrl: null,
      videoUrl: null,
      carouselPdfUrl: null,
      profile: {
        urn: 'urn:li:fsd_profile:ACoAA8aP8DFUk_ZHokLYeWZktoKg1vrGtXTJdvB',
        name: 'Darlene Hegmann-Mertz',
        headline: 'Senior Backend Engineer at Pixel Pictures | Cloud creator | Newsletter: Incident response',
        url: 'https://www.linkedin.com/in/darlene-hegmann-mertz-d9830067',
        imageUrl: null,
      },
    },
  ],
}

export const getCompany: Static<typeof CompanyResponse> = {
  id: 'urn:li:fsd_company:68935656',
  companyId: '68935656',
  name: 'Hydra Grid',
  publicIdentifier: 'hydragrid',
  url: 'https://www.linkedin.com/company/hydragrid/',
  websiteUrl: 'https://www.hydragrid.com',
  domain: 'hydragrid.com',
  industry: 'Oil and Gas',
  industryV1: 'Oil & Energy',
  employeeCount: 625,
  employeeCountRange: {
    start: 501,
    end: 1000,
  },
  headquarter: {
    line1: '121 Rue Oberkampf',
    city: 'Lyon',
    geographicArea: 'Auvergne-Rhône-Alpes',
    postalCode: '33647',
    country: 'FR',
    description: 'Global headquarters',
    headquarter: true,
  },
  locations: [
    {
      city: 'Lyon',
      geographicArea: 'Auvergne-Rhône-Alpes',
      country: 'FR',
      headquarter: true,
    },
  ],
  followerCount: 42545,
  logoUrl: 'https://media.linkedin.com/dms/image/v2/jHRLcGZJfVRuDCw/company-logo_200_200/0/1622880000000?e=1798790400&v=beta&t=NLHQ4s9Sna87JaZooIJpQyCLq7T_S_S2x7k5MeLO4be',
  coverImageUrl: 'https://media.linkedin.com/dms/image/v2/WSZDEA2Lq8Iayov/company-background_10000/0/1622880000000?e=1798790400&v=beta&t=cBq4L0WAECZ0JuhYXgkWRJTIStJQLqRQam5xzsNN5PU',
  description: 'Hydra Grid provides solar and storage projects for utilities and commercial sites. Founded in 2007 and headquartered in Lyon, our team of 625 people operates in 32 countries. We specialise in Grid Modernization, EV Charging and Energy Efficiency.',
  specialities: [
    'Grid Modernization',
    'EV Charging',
    'Energy Efficiency',
    'Wind Energy',
    'Carbon Accounting',
    'Solar PV',
    'Energy Storage',
  ],
  companyType: 'Privately Held',
  companyTypeCode: 'PRIVATELY_HELD',
  hashtags: ['#climate', '#sustainability'],
}

export const getCompanyBatch: Static<typeof CompanyBatchResponse> = {
  results: [
    {
      input: 'hydragrid',
      company: {
        id: 'urn:li:fsd_company:68935656',
        companyId: '68935656',
        name: 'Hydra Grid',
        publicIdentifier: 'hydragrid',
        url: 'https://www.linkedin.com/company/hydragrid/',
        websiteUrl: 'https://www.hydragrid.com',
        domain: 'hydragrid.com',
        industry: 'Oil and Gas',
        industryV1: 'Oil & Energy',
        employeeCount: 625,
        employeeCountRange: {
          start: 501,
          end: 1000,
        },
        headquarter: {
          line1: '121 Rue Oberkampf',
          city: 'Lyon',
          geographicArea: 'Auvergne-Rhône-Alpes',
          postalCode: '33647',
          country: 'FR',
          description: 'Global headquarters',
          headquarter: true,
        },
        locations: [
          {
            city: 'Lyon',
            geographicArea: 'Auvergne-Rhône-Alpes',
            country: 'FR',
            headquarter: true,
          },
        ],
        followerCount: 42545,
        logoUrl: 'https://media.linkedin.com/dms/image/v2/jHRLcGZJfVRuDCw/company-logo_200_200/0/1622880000000?e=1798790400&v=beta&t=NLHQ4s9Sna87JaZooIJpQyCLq7T_S_S2x7k5MeLO4be',
        coverImageUrl: 'https://media.linkedin.com/dms/image/v2/WSZDEA2Lq8Iayov/company-background_10000/0/1622880000000?e=1798790400&v=beta&t=cBq4L0WAECZ0JuhYXgkWRJTIStJQLqRQam5xzsNN5PU',
        description: 'Hydra Grid provides solar and storage projects for utilities and commercial sites. Founded in 2007 and headquartered in Lyon, our team of 625 people operates in 32 countries. We specialise in Grid Modernization, EV Charging and Energy Efficiency.',
        specialities: [
          'Grid Modernization',
          'EV Charging',
          'Energy Efficiency',
          'Wind Energy',
          'Carbon Accounting',
          'Solar PV',
          'Energy Storage',
        ],
        companyType: 'Privately Held',
        companyTypeCode: 'PRIVATELY_HELD',
        hashtags: ['#climate', '#sustainability'],
      },
    },
    {
      input: 'no-such-company',
      error: {
        code: 'COMPANY_NOT_FOUND',
        message: 'No company page exists for this input.',
        status: 404,
      },
    },
  ],
  found: 1,
  notFound: 1,
  failed: 0,
}

export const getCompanyPosts: Static<typeof CompanyPostsResponse> = {
  posts: [
    {
      id: 'urn:li:activity:7520973077307225082',
      shareUrn: 'urn:li:ugcPost:7520973077306041736',
      content: 'We put together a short guide: "EV fleet transition: 6 things we learned" 📄\n\n27 pages, no fluff. Swipe through and tell me what is missing.\n\n#climate #renewableenergy #sustainability',
      date: '2026-10-27T22:21:54.552Z',
      reactionCount: 0,
      commentCount: 0,
      sharesCount: 0,
      reactionsByType: {},
      postType: 'document',
      shareUrl: 'https://www.linkedin.com/feed/update/urn:li:activity:7520973077307225082/',
      imageUrl: null,
      videoUrl: null,
      carouselPdfUrl: 'https://media.linkedin.com/dms/document/media/v2/8QYsP1MKoT938lZ/feedshare-document-pdf-analyzed/0/1793139714552?e=1798790400&v=beta&t=FIGpJWBjUSIWJCDlSWtA6DDz4UjDpyvsTbxL6YHZuUv',
      images: [],
      video: null,
      authorType: 'Company',
      profile: {
        urn: 'urn:li:fsd_company:68935656',
        name: 'Hydra Grid',
        headline: 'Hydra Grid provides solar and storage projects for utilities and commercial sites. Founded in 2007 and headquartered in ',
        url: 'https://www.linkedin.com/company/hydragrid/',
        imageUrl: 'https://media.linkedin.com/dms/image/v2/jHRLcGZJfVRuDCw/company-logo_200_200/0/1622880000000?e=1798790400&v=beta&t=NLHQ4s9Sna87JaZooIJpQyCLq7T_S_S2x7k5MeLO4be',
      },
      permissions: {
        canReact: true,
        canPostComments: true,
        canShare: true,
        commentingDisabled: false,
        allowedCommentersScope: 'ALL',
        shareAudience: 'PUBLIC',
        isActivity: true,
        rootShare: true,
      },
    },
  ],
  paginationToken: 'eyJzIjoidVY0YnNxeGJWUDI1bXR4MyIsInAiOiI3NTIwOTczMDc3MzA3MjI1MDgyIn0.rwy2oY8yW8OU1WB6sJoPqw',
  hasMore: true,
  pageSize: 1,
}

export const getPostEngagement: Static<typeof EngagementResponse> = {
  post: 'urn:li:activity:7518843934460983324',
  comments: [
    {
      urn: 'urn:li:comment:(activity:7518843934460983324,7518870540641377388)',
      text: "Couldn't agree more, Hui Min. We learned the same lesson about fine-tuning small models the hard way.",
      createdAt: '2026-10-22T03:07:10.748Z',
      reactionCount: 2,
      author: {
        id: 'urn:li:fsd_company:1503321',
        name: 'Novum Care',
        headline: 'Novum Care provides connected care tools for hospitals and clinics. Founded in 2022 and headquartered in Amsterdam, our ',
        profilePictureUrl: 'https://media.linkedin.com/dms/image/v2/lfZDa87ukUPbzRS/company-logo_200_200/0/1729065600000?e=1798790400&v=beta&t=Zc8mjcVWCSA3ptcECARsnLV71y6GYw1VTnzbOjFaQ8t',
        profileUrl: 'https://www.linkedin.com/company/novumcare/',
        publicId: 'novumcare',
        profileId: null,
      },
      permalink: 'https://www.linkedin.com/feed/update/urn:li:activity:7518843934460983324?commentUrn=urn%3Ali%3Acomment%3A(activity%3A7518843934460983324%2C7518870540641377388)',
      pinned: false,
      replies: [],
    },
  ],
  commentsPaginationToken: 'eyJzIjoiSnZNSEtjVldfd1BZV1pWcSIsInAiOlswLDIsMTc5MjYzODQzMDc0OCwiNzUxODg3MDU0MDY0MTM3NzM4OCJdfQ.Ih_SyGvcAeQZ6ROOhcVjgg',
  commentsHasMore: true,
  reactions: [
    {
      reactionType: 'PRAISE',
      actor: {
        urn: 'urn:li:fsd_profile:ACoAAWBsPn_YCykAwKjjut2r7DPUmKV91n2cQT6',
        name: 'Haruto Watanabe',
        headline: 'Biomedical Engineer | Retrieval-augmented generation | Clinical Research',
        profileUrl: 'https://www.linkedin.com/in/haruto-watanabe-2058d758',
        profilePictureUrl: 'https://media.linkedin.com/dms/image/v2/G7arF0TVmUDH7UW/profile-displayphoto-shrink_800_800/0/1629878400000?e=1798790400&v=beta&t=VZqGw6QYdNKfW-NkKBNg3DU0GtuQgb5rjDYK_xu00kj',
        publicId: 'haruto-watanabe-2058d758',
        profileId: 'ACoAAWBsPn_YCykAwKjjut2r7DPUmKV91n2cQT6',
      },
    },
    {
      reactionType: 'INTEREST',
      actor: {
        urn: 'urn:li:fsd_company:20009571',
        name: 'Studio Design',
        headline: 'Studio Design designs video, design and editorial work for brands and publishers. Founded in 1993 and headquartered in H',
        profileUrl: 'https://www.linkedin.com/company/studio-design/',
        profilePictureUrl: 'https://media.linkedin.com/dms/image/v2/KoQ5RB3o8gzk6mh/company-logo_200_200/0/1626940800000?e=1798790400&v=beta&t=kpCfzlPt2MJ_udpXyx4puzPXra_uuT1KRIoEQUgfNOK',
        publicId: 'studio-design',
        profileId: null,
      },
    },
  ],
  reactionsHasMore: true,
}

export const getPostComments: Static<typeof CommentsResponse> = {
  comments: [
    {
      urn: 'urn:li:comment:(activity:7518843934460983324,7518914529507307897)',
      text: 'Really useful perspective on fine-tuning small models. Would love to hear how you got buy-in from leadership.',
      createdAt: '2026-10-22T06:01:58.511Z',
      reactionCount: 0,
      author: {
        id: 'urn:li:fsd_profile:ACoAA7eiDkTRbKAp2DwdyNoX9beclAkAIWjosy9',
        name: "Pauline O'Connell",
        headline: 'Head of Engineering @ Polaris Software | Python & Microservices',
        profilePictureUrl: 'https://media.linkedin.com/dms/image/v2/jjd6meMLMjcM7MZ/profile-displayphoto-shrink_800_800/0/1750406400000?e=1798790400&v=beta&t=X36IQW6sSKi0zVCaefhbCH7uK_lqldNo2RAINPDDxBl',
        profileUrl: 'https://www.linkedin.com/in/pauline-o-connell-dbd0e',
        publicId: 'pauline-o-connell-dbd0e',
        profileId: 'ACoAA7eiDkTRbKAp2DwdyNoX9beclAkAIWjosy9',
      },
      permalink: 'https://www.linkedin.com/feed/update/urn:li:activity:7518843934460983324?commentUrn=urn%3Ali%3Acomment%3A(activity%3A7518843934460983324%2C7518914529507307897)',
      pinned: false,
      replies: [
        {
          urn: 'urn:li:comment:(activity:7518843934460983324,7518928861400659752)',
          text: 'Thank you Pauline, means a lot.',
          createdAt: '2026-10-22T06:58:55.500Z',
          reactionCount: 0,
          author: {
            id: 'urn:li:fsd_profile:ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt',
            name: 'Hui Min Lee',
            headline: 'Chief Marketing Officer at Studio Design | Startups creator | Newsletter: Responsible AI',
            profilePictureUrl: 'https://media.linkedin.com/dms/image/v2/sLM5w40K5GHKm7F/profile-displayphoto-shrink_800_800/0/1703923200000?e=1798790400&v=beta&t=58VqvHqtEdlqpNd4qE4xhPaC53ImS2kk81NLGypMmsr',
            profileUrl: 'https://www.linkedin.com/in/hui-min-lee-175acd',
            publicId: 'hui-min-lee-175acd',
            profileId: 'ACoAAsVg7bN4aWuKMzTEx1R1ZYKAVf898izGSZt',
          },
          permalink: 'https://www.linkedin.com/feed/update/urn:li:activity:7518843934460983324?commentUrn=urn%3Ali%3Acomment%3A(activity%3A7518843934460983324%2C7518928861400659752)',
          pinned: false,
          replies: [],
        },
      ],
    },
  ],
  hasMore: false,
}

export const getPostReactions: Static<typeof PostReactionsResponse> = {
  reactions: [
    {
      reactionType: 'PRAISE',
      actor: {
        urn: 'urn:li:fsd_profile:ACoAAWBsPn_YCykAwKjjut2r7DPUmKV91n2cQT6',
        name: 'Haruto Watanabe',
        headline: 'Biomedical Engineer | Retrieval-augmented generation | Clinical Research',
        profileUrl: 'https://www.linkedin.com/in/haruto-watanabe-2058d758',
        profilePictureUrl: 'https://media.linkedin.com/dms/image/v2/G7arF0TVmUDH7UW/profile-displayphoto-shrink_800_800/0/1629878400000?e=1798790400&v=beta&t=VZqGw6QYdNKfW-NkKBNg3DU0GtuQgb5rjDYK_xu00kj',
        publicId: 'haruto-watanabe-2058d758',
        profileId: 'ACoAAWBsPn_YCykAwKjjut2r7DPUmKV91n2cQT6',
      },
    },
    {
      reactionType: 'INTEREST',
      actor: {
        urn: 'urn:li:fsd_company:20009571',
        name: 'Studio Design',
        headline: 'Studio Design designs video, design and editorial work for brands and publishers. Founded in 1993 and headquartered in H',
        profileUrl: 'https://www.linkedin.com/company/studio-design/',
        profilePictureUrl: 'https://media.linkedin.com/dms/image/v2/KoQ5RB3o8gzk6mh/company-logo_200_200/0/1626940800000?e=1798790400&v=beta&t=kpCfzlPt2MJ_udpXyx4puzPXra_uuT1KRIoEQUgfNOK',
        publicId: 'studio-design',
        profileId: null,
      },
    },
  ],
  hasMore: true,
}

export const searchPosts: Static<typeof SearchPostsResponse> = {
  query: 'hiring OR "data platform"',
  sort: null,
  results: [
    {
      id: 'urn:li:activity:7522759417449341728',
      shareUrn: 'urn:li:ugcPost:7522759417452623186',
      content: 'Worth a read: Hiring well: what we learned\n\nClarity is kindness, especially when the news is hard. Would love your feedback.\n\nhttps://titanengineering.com/blog/hiring-well',
      date: '2026-11-01T20:40:11.231Z',
      reactionCount: 2,
      commentCount: 0,
      sharesCount: 0,
      reactionsByType: {
        like: 2,
      },
      postType: 'article',
      shareUrl: 'https://www.linkedin.com/feed/update/urn:li:activity:7522759417449341728/',
      imageUrl: 'https://media.linkedin.com/dms/image/v2/P7jlLrKwC9FaVh9/article-cover_image-shrink_627_1200/0/1793565611231?e=1798790400&v=beta&t=KEBiFUQHh_THyLfftZxeINQXR23JQAXQvEivdq6GXvJ',
      videoUrl: null,
      carouselPdfUrl: null,
      images: [
        {
          url: 'https://media.linkedin.com/dms/image/v2/P7jlLrKwC9FaVh9/article-cover_image-shrink_627_1200/0/1793565611231?e=1798790400&v=beta&t=KEBiFUQHh_THyLfftZxeINQXR23JQAXQvEivdq6GXvJ',
          width: 1200,
          height: 627,
        },
      ],
      video: null,
      authorType: 'Person',
      authorProfileId: 'ACoAARj7DO8zD61Uxfqf973UEzu5zC9GhfyqXQC',
      profile: {
        urn: 'urn:li:fsd_profile:ACoAARj7DO8zD61Uxfqf973UEzu5zC9GhfyqXQC',
        name: 'Luis Vargas',
        headline: 'Senior Supply Chain Manager at Titan Engineering | Supply Chain creator | Newsletter: AI agents',
        url: 'https://www.linkedin.com/in/luis-vargas-4d540c',
        imageUrl: 'https://media.linkedin.com/dms/image/v2/yGQptVzRItJY58r/profile-displayphoto-shrink_800_800/0/1665907200000?e=1798790400&v=beta&t=ore_y9SagoUEReBabaDtoYY-OSGgqaQDhq8_am03aT3',
      },
      permissions: {
        canReact: true,
        canPostComments: true,
        canShare: true,
        commentingDisabled: false,
        allowedCommentersScope: 'ALL',
        shareAudience: 'PUBLIC',
        isActivity: true,
        rootShare: true,
      },
      isEdited: true,
      reactionTypeCounts: {
        LIKE: 2,
      },
    },
  ],
  cursor: 'eyJzIjoiRDNVQ2RCWFJqLXBhUUpfMSIsInAiOnsibSI6InIiLCJuIjoxLCJzIjpudWxsLCJvIjoxLCJ0IjoiNzUyMjg0Mzg3MDAwMjQzNDIxOCIsImsiOiJhbGwiLCJhIjoiYUdZMTFUZks0eUEifX0.mlEeGbHO5TJ43uSIwE5x-A',
}
